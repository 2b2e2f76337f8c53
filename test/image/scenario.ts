// The configuration the image test deploys: Ingress hosts go to a host map, Services become
// backends whose servers come from EndpointSlices (the shape of test/e2e/controller's first-traffic
// scenario; the full Ingress library is tested elsewhere).
import type { KubeObject } from '#kube-sim';

const HAPROXY_CFG = `global
  log stdout format raw local0 err
defaults
  mode http
  option idle-close-on-response
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend http
  bind "\${POD_IP}:{{ extra.http_port }}"
  use_backend %[req.hdr(host),field(1,:),lower,map({{ "hosts.map" | map_path }},be_default)]
backend be_default
  balance roundrobin
  http-request return status 404 content-type text/plain string "no route"
{%- for svc in resources.services %}
backend be_{{ svc.metadata.namespace }}_{{ svc.metadata.name }}
  balance roundrobin
{%- assign slices = resources.endpointslices | fetch: svc.metadata.namespace, svc.metadata.name %}
{%- for slice in slices %}{% for ep in slice.endpoints %}{% for addr in ep.addresses %}
  server s{{ forloop.index }}_{{ addr | replace: ".", "_" }} {{ addr }}:{{ slice.ports[0].port }}
{%- endfor %}{% endfor %}{% endfor %}
{%- endfor %}
`;

const HOSTS_MAP = `{%- for ing in resources.ingresses %}{% for rule in ing.spec.rules %}{% for p in rule.http.paths %}
{{ rule.host }} be_{{ ing.metadata.namespace }}_{{ p.backend.service.name }}
{%- endfor %}{% endfor %}{% endfor %}
`;

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
