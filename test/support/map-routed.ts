// A small map-routed configuration for the tests that run `haptic run` against kube-sim and one
// agent (first traffic, the image test): Ingress hosts go to a host map, Services become backends
// whose servers come from EndpointSlices. The full Ingress library is tested in its own specs.

/** haproxy.cfg: binds `${POD_IP}:extra.http_port`, routes by the host map, 404 otherwise. */
export const HAPROXY_CFG = `global
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

/** hosts.map: one line per Ingress rule path, host → the backend of its Service. */
export const HOSTS_MAP = `{%- for ing in resources.ingresses %}{% for rule in ing.spec.rules %}{% for p in rule.http.paths %}
{{ rule.host }} be_{{ ing.metadata.namespace }}_{{ p.backend.service.name }}
{%- endfor %}{% endfor %}{% endfor %}
`;
