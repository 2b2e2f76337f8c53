import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCerts, type TestCerts } from '../../support/test-certs.js';
import { Cluster } from '../node-sim/harness.js';
import { kubectls } from './kubectls.js';

interface Run {
  code: number;
  out: string;
  err: string;
}

/**
 * Everyday kubectl against kube-sim, with node-sim playing the Deployment controller and kubelet:
 * imperative `create` (protobuf bodies), `scale` (the scale subresource), `rollout status`,
 * server-side apply with a conflict and `--force-conflicts`, and managedFields in `get -o yaml`.
 */
let cluster: Cluster;
let dir: string;
let certs: TestCerts;

beforeAll(async () => {
  cluster = await Cluster.start();
  dir = await mkdtemp(join(tmpdir(), 'kube-sim-kubectl-workloads-'));
  certs = makeTestCerts();
}, 60_000);
afterAll(async () => {
  await cluster.stop();
  await rm(dir, { recursive: true, force: true });
  await rm(certs.dir, { recursive: true, force: true });
}, 60_000);

describe.each(kubectls().map((k, i) => [k, `s${i}`] as const))(
  'kubectl workloads session (%s)',
  (kubectl, ns) => {
    const k = (...args: string[]): Promise<Run> =>
      new Promise((resolve) => {
        const env = {
          PATH: process.env.PATH,
          HOME: dir,
          KUBECONFIG: cluster.kubeSim.kubeconfigPath,
          KUBECACHEDIR: join(dir, `cache-${ns}`),
        };
        execFile(kubectl, ['-n', ns, ...args], { env, timeout: 150_000 }, (e, out, err) =>
          resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
        );
      });
    const ok = async (...args: string[]): Promise<string> => {
      const r = await k(...args);
      expect(r.code, `kubectl ${args.join(' ')}: ${r.err}`).toBe(0);
      return r.out;
    };
    const configMap = (data: Record<string, string>) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data });

    it('creates a deployment, a ClusterIP service, a TLS secret and an ingress imperatively', async () => {
      await ok('create', 'namespace', ns);
      expect(
        await ok(
          'create',
          'deployment',
          'echo',
          '--image=ghcr.io/haptic/haptic-echo:dev',
          '--port=8080',
        ),
      ).toContain('deployment.apps/echo created');
      expect(await ok('create', 'service', 'clusterip', 'echo', '--tcp=80:8080')).toContain(
        'service/echo created',
      );
      expect(
        await ok(
          'create',
          'secret',
          'tls',
          'echo-tls',
          `--cert=${certs.certFile}`,
          `--key=${certs.keyFile}`,
        ),
      ).toContain('secret/echo-tls created');
      expect(
        await ok(
          'create',
          'ingress',
          'echo',
          '--class=haptic',
          '--rule=echo.example/*=echo:80,tls=echo-tls',
        ),
      ).toContain('ingress.networking.k8s.io/echo created');
      const ing = cluster.kubeSim.get('networking.k8s.io/v1', 'Ingress', ns, 'echo') as unknown as {
        spec: {
          rules: { host: string; http: { paths: { pathType: string }[] } }[];
          tls: unknown[];
        };
      };
      expect(ing.spec.rules[0]!.host).toBe('echo.example');
      expect(ing.spec.rules[0]!.http.paths[0]!.pathType).toBe('Prefix');
      expect(ing.spec.tls).toEqual([{ hosts: ['echo.example'], secretName: 'echo-tls' }]);
      const secret = cluster.kubeSim.get('v1', 'Secret', ns, 'echo-tls') as unknown as {
        type: string;
      };
      expect(secret.type).toBe('kubernetes.io/tls');
    });

    it('scales through the scale subresource and waits for the rollout node-sim performs', async () => {
      expect(await ok('scale', 'deployment/echo', '--replicas=2')).toContain(
        'deployment.apps/echo scaled',
      );
      const out = await ok('rollout', 'status', 'deployment/echo', '--timeout=120s');
      expect(out).toContain('deployment "echo" successfully rolled out');
      const pods = cluster.kubeSim
        .list('v1', 'Pod', ns)
        .filter((p) => p.metadata.labels?.app === 'echo' && !p.metadata.deletionTimestamp);
      expect(pods).toHaveLength(2);
    }, 150_000);

    it('applies server-side twice, is refused on a conflict, then forces it; get -o yaml shows managedFields', async () => {
      const file = join(dir, `ssa-${ns}.json`);
      await writeFile(file, configMap({ a: '1' }));
      expect(await ok('apply', '--server-side', '-f', file)).toContain(
        'configmap/ssa serverside-applied',
      );
      expect(await ok('apply', '--server-side', '-f', file)).toContain(
        'configmap/ssa serverside-applied',
      );
      await writeFile(file, configMap({ a: '2' }));
      const conflict = await k('apply', '--server-side', '--field-manager=other', '-f', file);
      expect(conflict.code).not.toBe(0);
      expect(conflict.err).toContain('Apply failed with 1 conflict');
      expect(conflict.err).toContain('conflict with "kubectl"');
      expect(conflict.err).toContain('.data.a');
      expect(
        await ok(
          'apply',
          '--server-side',
          '--field-manager=other',
          '--force-conflicts',
          '-f',
          file,
        ),
      ).toContain('configmap/ssa serverside-applied');
      const yaml = await ok('get', 'configmap', 'ssa', '-o', 'yaml', '--show-managed-fields');
      expect(yaml).toContain('managedFields:');
      expect(yaml).toContain('manager: other');
      expect(yaml).toContain('operation: Apply');
      expect(yaml).toContain('f:a: {}');
      expect(yaml).toMatch(/a: "2"/);
    });
  },
);
