import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeSim } from '#testbed/kube-sim';
import { repoRoot } from '#testbed/stack';

export const G = 'gateway.networking.k8s.io/v1';
export const CONTROLLER = 'haproxy-haptic.org/gateway-controller';
const CRDS = ['gatewayclasses', 'gateways', 'httproutes', 'grpcroutes', 'referencegrants'];

/** kube-sim with the upstream Gateway API CRDs, and a client config for it. */
export async function startGatewaySim(): Promise<{ sim: KubeSim; kc: KubeConfig }> {
  const sim = await KubeSim.start({
    port: 0,
    manifests: CRDS.map((c) =>
      join(repoRoot(), 'test/conformance/gateway-api/crds', `gateway.networking.k8s.io_${c}.yaml`),
    ),
  });
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  return { sim, kc };
}
