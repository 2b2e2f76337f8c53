// Process memory of the index per 10,000 objects: `npm run build && node --expose-gc scripts/index-memory.mjs`.
// Full store: 10,000 realistic Ingresses held. On-demand store: 10,000 references (no objects).
import { ResourceIndex } from '#index';

const N = Number(process.argv[2] ?? 10_000);

export function ingress(i) {
  const ns = `team-${i % 50}`;
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: {
        name: `app-${i}`,
        namespace: ns,
        uid: `4f9a${String(i).padStart(8, '0')}-1c2d-4e5f-8a9b-0c1d2e3f4a5b`,
        resourceVersion: String(100000 + i),
        generation: 3,
        creationTimestamp: '2026-11-29T12:00:00Z',
        labels: { 'app.kubernetes.io/name': `app-${i}`, 'app.kubernetes.io/part-of': ns },
        annotations: {
          'haproxy.org/timeout-server': '30s',
          'haproxy.org/ssl-redirect': 'true',
          'haproxy.org/backend-config-snippet': 'http-request set-header X-Team ' + ns,
        },
      },
      spec: {
        ingressClassName: 'haproxy',
        tls: [{ hosts: [`app-${i}.example.com`], secretName: `app-${i}-tls` }],
        rules: [
          {
            host: `app-${i}.example.com`,
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: `app-${i}`, port: { number: 8080 } } },
                },
                {
                  path: '/api',
                  pathType: 'Prefix',
                  backend: { service: { name: `app-${i}-api`, port: { name: 'http' } } },
                },
              ],
            },
          },
        ],
      },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.10' }] } },
    }),
  );
}

function measure() {
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

async function run(store) {
  const index = new ResourceIndex({ fetch: { fetchObject: async () => undefined } });
  index.configure({ ingresses: { indexBy: ['metadata.namespace', 'metadata.name'], store } });
  const before = measure();
  const batch = [];
  for (let i = 0; i < N; i++) batch.push(ingress(i));
  index.reset('ingresses', undefined, batch);
  batch.length = 0;
  if (store === 'full') (await index.snapshot()).lookup('ingresses', ['team-1']);
  const after = measure();
  const bytes = JSON.stringify(ingress(1)).length;
  console.log(
    `${store}: ${N} objects (${bytes} B JSON each): heap +${((after.heap - before.heap) / 1048576).toFixed(1)} MiB, ` +
      `rss +${((after.rss - before.rss) / 1048576).toFixed(1)} MiB; counts ${JSON.stringify(index.counts())}`,
  );
  return index;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const which = process.argv[3];
  if (!which || which === 'full') await run('full');
  if (!which || which === 'on-demand') await run('on-demand');
}
