// The configuration the image test deploys: Ingress hosts go to a host map, Services become
// backends whose servers come from EndpointSlices (the shape of test/e2e/controller's first-traffic
// scenario; the full Ingress library is tested elsewhere).
import type { KubeObject } from '#testbed/kube-sim';
import { HAPROXY_CFG, HOSTS_MAP } from '../support/map-routed.js';

const watched = (apiVersion: string, resources: string, byName: string) => ({
  apiVersion,
  resources,
  indexBy: ['metadata.namespace', byName],
});

/** The HAProxyTemplateConfig haptic/haptic naming the agent's port and HAProxy's HTTP port. */
export function templateConfig(agentPort: number, httpPort: number): KubeObject {
  return {
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyTemplateConfig',
    metadata: { namespace: 'haptic', name: 'haptic' },
    spec: {
      credentialsSecretRef: { name: 'dp-creds' },
      podSelector: { matchLabels: { app: 'haproxy' } },
      controller: { reconcile: { debounce: '20ms', maxDelay: '200ms' } },
      dataplane: {
        port: agentPort,
        minDeploymentInterval: '50ms',
        mapsDir: 'maps',
        sslCertsDir: 'ssl',
        generalStorageDir: 'general',
      },
      templatingSettings: { extraContext: { http_port: httpPort } },
      watchedResources: {
        ingresses: watched('networking.k8s.io/v1', 'ingresses', 'metadata.name'),
        services: watched('v1', 'services', 'metadata.name'),
        endpointslices: watched(
          'discovery.k8s.io/v1',
          'endpointslices',
          "metadata.labels['kubernetes.io/service-name']",
        ),
      },
      maps: { 'hosts.map': { template: HOSTS_MAP } },
      haproxyConfig: { template: HAPROXY_CFG },
    },
  };
}
