// Render benchmark: a realistic Ingress template against a hand-written TypeScript function that
// produces the same bytes, for 1,000 and 10,000 Ingresses, in one run.
// Run: npm run build && node dist/apps/controller/scripts/bench-render.js [sizes...]
// (Here, not in libs/render: it renders over #index's snapshot, the one production uses.)
import { performance } from 'node:perf_hooks';
import { snapshotOf, type IndexSnapshot } from '#index';
import { compileTemplates, render, type RenderSpec } from '#render';

const HAPROXY = `global
  master-worker
  maxconn 100000
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend http
  bind "\${POD_IP}:80"
  http-request set-var(txn.be) base,map_beg({{ "routes.map" | map_path }})
  use_backend %[var(txn.be)] if { var(txn.be) -m found }
  default_backend be_default
backend be_default
  http-request return status 404
{%- for ing in resources.ingresses %}{% for rule in ing.spec.rules %}{% for p in rule.http.paths %}
{%- assign ns = ing.metadata.namespace %}
{%- assign svc = p.backend.service %}
backend be_{{ ns }}_{{ ing.metadata.name }}_{{ svc.name }}_{{ svc.port.number }}
  balance {{ ing.metadata.annotations["haproxy.org/load-balance"] | default: "roundrobin" }}
  timeout server {{ ing.metadata.annotations["haproxy.org/timeout-server"] | default: "30s" | valid_duration }}
{%- assign slices = resources.endpointslices | fetch: ns, svc.name %}
{%- for slice in slices %}{% for ep in slice.endpoints %}{% if ep.conditions.ready %}
  server {{ slice.metadata.name }}-{{ forloop.index }} {{ ep.addresses[0] }}:{{ svc.port.number }} check
{%- endif %}{% endfor %}{% endfor %}
{%- endfor %}{% endfor %}{% endfor %}
`;

const ROUTES = `{% for ing in resources.ingresses %}{% for rule in ing.spec.rules %}{% for p in rule.http.paths -%}
{{ rule.host | valid_hostname }}{{ p.path | default: "/" | valid_path }} be_{{ ing.metadata.namespace }}_{{ ing.metadata.name }}_{{ p.backend.service.name }}_{{ p.backend.service.port.number }}
{% endfor %}{% endfor %}{% endfor %}`;

const INDEX = {
  ingresses: ['metadata.namespace', 'metadata.name'],
  endpointslices: ['metadata.namespace', "metadata.labels['kubernetes.io/service-name']"],
};

const spec: RenderSpec = {
  haproxyConfig: { template: HAPROXY },
  maps: { 'routes.map': { template: ROUTES } },
  files: {},
  sslCertificates: {},
  templateSnippets: {},
  templatingSettings: { extraContext: {} },
  watchedResources: Object.fromEntries(
    Object.entries(INDEX).map(([name, indexBy]) => [
      name,
      { apiVersion: 'v1', resources: name, indexBy, store: 'full', enableValidationWebhook: false },
    ]),
  ),
  dataplane: {
    port: 5555,
    scheme: 'http',
    minDeploymentInterval: '500ms',
    driftPreventionInterval: '60s',
    deploymentTimeout: '30s',
    maxParallel: 10,
    mapsDir: 'maps',
    sslCertsDir: 'ssl',
    generalStorageDir: 'general',
    configFile: 'haproxy.cfg',
  },
};

interface Ingress {
  metadata: { namespace: string; name: string; annotations: Record<string, string> };
  spec: { rules: { host: string; http: { paths: Path[] } }[] };
}
interface Path {
  path: string;
  backend: { service: { name: string; port: { number: number } } };
}
interface Slice {
  metadata: { namespace: string; name: string; labels: Record<string, string> };
  endpoints: { addresses: string[]; conditions: { ready: boolean } }[];
}

/** N Ingresses in N/10 namespaces, two paths and services each, one slice of 3 endpoints per service. */
function world(n: number): { ingresses: Ingress[]; endpointslices: Slice[] } {
  const ingresses: Ingress[] = [];
  const endpointslices: Slice[] = [];
  for (let i = 0; i < n; i++) {
    const ns = `team-${String(i % Math.max(1, n / 10)).padStart(4, '0')}`;
    const name = `app-${String(i).padStart(5, '0')}`;
    const annotations: Record<string, string> =
      i % 3 === 0
        ? { 'haproxy.org/load-balance': 'leastconn', 'haproxy.org/timeout-server': '5m' }
        : {};
    const paths = ['web', 'api'].map((svc, k) => ({
      path: k === 0 ? '/' : '/api',
      backend: { service: { name: `${name}-${svc}`, port: { number: 8080 + k } } },
    }));
    ingresses.push({
      metadata: { namespace: ns, name, annotations },
      spec: { rules: [{ host: `${name}.${ns}.example.com`, http: { paths } }] },
    });
    for (const p of paths) {
      const svc = p.backend.service.name;
      endpointslices.push({
        metadata: {
          namespace: ns,
          name: `${svc}-abcde`,
          labels: { 'kubernetes.io/service-name': svc },
        },
        endpoints: [0, 1, 2].map((e) => ({
          addresses: [`10.${(i >> 8) & 255}.${i & 255}.${e + 10}`],
          conditions: { ready: e !== 2 || i % 2 === 0 },
        })),
      });
    }
  }
  return { ingresses, endpointslices };
}

// eslint-disable-next-line no-control-regex -- the same check the escaper makes
const UNSAFE = /[\u0000-\u001f\u007f-\u009f]/;
function safe(v: string): string {
  if (UNSAFE.test(v)) throw new Error(`unsafe ${JSON.stringify(v)}`);
  return v;
}

/** The same configuration, written by hand in TypeScript (index look-ups included). */
function handWritten(snap: IndexSnapshot): { cfg: string; routes: string } {
  const ingresses = snap.list('ingresses') as unknown as readonly Ingress[];
  const out: string[] = [
    HAPROXY.slice(0, HAPROXY.indexOf('{%-'))
      .trimEnd()
      .replace('{{ "routes.map" | map_path }}', 'maps/routes.map'),
  ];
  const routes: string[] = [];
  for (const ing of ingresses) {
    const ns = ing.metadata.namespace;
    for (const rule of ing.spec.rules) {
      for (const p of rule.http.paths) {
        const svc = p.backend.service;
        const be = `be_${safe(ns)}_${safe(ing.metadata.name)}_${safe(svc.name)}_${svc.port.number}`;
        const timeout = ing.metadata.annotations['haproxy.org/timeout-server'] ?? '30s';
        if (!/^\d{1,9}(?:us|ms|s|m|h|d)?$/.test(timeout)) throw new Error('timeout');
        out.push(
          `\nbackend ${be}\n  balance ${safe(ing.metadata.annotations['haproxy.org/load-balance'] ?? 'roundrobin')}\n  timeout server ${timeout}`,
        );
        for (const slice of snap.lookup('endpointslices', [
          ns,
          svc.name,
        ]) as unknown as readonly Slice[]) {
          slice.endpoints.forEach((ep, k) => {
            if (ep.conditions.ready) {
              out.push(
                `\n  server ${safe(slice.metadata.name)}-${k + 1} ${safe(ep.addresses[0] ?? '')}:${svc.port.number} check`,
              );
            }
          });
        }
        routes.push(`${safe(rule.host.toLowerCase())}${safe(p.path)} ${be}\n`);
      }
    }
  }
  out.push('\n');
  return { cfg: out.join(''), routes: routes.join('') };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

interface Timing {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function elapsed(fn: () => void): Timing {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wallMs, cpuMs: (c.user + c.system) / 1000 };
}

/**
 * Median wall and CPU times of `a` and `b`, measured alternately so that load on the machine hits
 * both alike (CPU time is the fairer figure on a busy machine).
 */
function timeBoth(runs: number, a: () => void, b: () => void): [Timing, Timing] {
  const ta: Timing[] = [];
  const tb: Timing[] = [];
  for (let i = 0; i < runs; i++) {
    ta.push(elapsed(a));
    tb.push(elapsed(b));
  }
  const med = (ts: Timing[]): Timing => ({
    wallMs: median(ts.map((t) => t.wallMs)),
    cpuMs: median(ts.map((t) => t.cpuMs)),
  });
  return [med(ta), med(tb)];
}

function main(): void {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const t0 = performance.now();
  const compiled = compileTemplates(spec);
  const compileMs = performance.now() - t0;
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  console.log(`node ${process.version}; compile once: ${compileMs.toFixed(1)} ms`);
  console.log(
    'ingresses  template-wall-ms  template-cpu-ms  hand-wall-ms  hand-cpu-ms  ratio-wall  ratio-cpu  cfg-bytes  heap-MB',
  );
  for (const n of sizes.length > 0 ? sizes : [1000, 10000]) {
    const snap = snapshotOf(INDEX, world(n));
    const r = render(compiled.value, snap);
    const h = handWritten(snap);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    if (r.outputs.haproxyConfig !== h.cfg || r.outputs.maps['routes.map'] !== h.routes) {
      const a = r.outputs.haproxyConfig + '\n=====\n' + (r.outputs.maps['routes.map'] ?? '');
      const b = h.cfg + '\n=====\n' + h.routes;
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      throw new Error(
        `the template and the hand-written function disagree at ${i}: ${JSON.stringify(a.slice(i - 40, i + 40))} vs ${JSON.stringify(b.slice(i - 40, i + 40))}`,
      );
    }
    const runs = n >= 10000 ? 5 : 11;
    const viaTemplate = (): void => void render(compiled.value, snap);
    const byHand = (): void => void handWritten(snap);
    timeBoth(2, viaTemplate, byHand); // warm-up
    const [templateMs, handMs] = timeBoth(runs, viaTemplate, byHand);
    const heap = process.memoryUsage().heapUsed / 2 ** 20;
    const row = [
      n,
      templateMs.wallMs.toFixed(1),
      templateMs.cpuMs.toFixed(1),
      handMs.wallMs.toFixed(1),
      handMs.cpuMs.toFixed(1),
      (templateMs.wallMs / handMs.wallMs).toFixed(1),
      (templateMs.cpuMs / handMs.cpuMs).toFixed(1),
      h.cfg.length,
      heap.toFixed(0),
    ];
    console.log(row.map(String).join('  '));
  }
}

main();
