import { performance } from 'node:perf_hooks';
import { request } from 'node:https';
import type { TemplateConfig } from '#core';
import type { RenderedOutputs } from '#events';
import { ResourceIndex, type KubeObject } from '#index';
import { RenderService } from '#render';
import { ValidationService } from '#validation';
import {
  admissionResponse,
  ingressAdmissionReview,
  parseAdmissionReview,
  review,
  startAdmissionServer,
  type KeyPair,
  type Review,
} from '#webhook';
import { AdmissionDryRun } from '../../../../../apps/controller/src/run/admission-dry-run.js';
import { ingressAt, ingressWorld } from './manifests.js';

/** What the webhook scenario needs. */
export interface WebhookScenarioOptions {
  /** The Ingress library (`loadIngressLibrary`); its ingresses are opted into the webhook here. */
  readonly config: TemplateConfig;
  readonly ingresses: number;
  readonly haproxyBin: string;
  /** The serving certificate (self-signed for 127.0.0.1). */
  readonly tls: KeyPair;
  /** Reviews per kind of change (default 30 runtime-only, 10 structural, 30 of another class). */
  readonly counts?: { runtime?: number; structural?: number; otherClass?: number };
}

/** Latencies (ms) of one kind of review, with how each ended. */
export interface ReviewSamples {
  readonly kind: string;
  readonly ms: readonly number[];
  readonly outcomes: Readonly<Record<string, number>>;
}

/** Nearest-rank percentile of samples (ms). */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function optedIn(config: TemplateConfig): TemplateConfig {
  const spec = structuredClone(config.spec) as { watchedResources: Record<string, object> };
  spec.watchedResources['ingresses'] = {
    ...spec.watchedResources['ingresses'],
    enableValidationWebhook: true,
  };
  return { source: { ...config.source, generation: 1 }, spec } as unknown as TemplateConfig;
}

function post(port: number, ca: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/validate', method: 'POST', ca, agent: false },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode}: ${text}`)),
        );
      },
    );
    req.setHeader('content-type', 'application/json');
    req.on('error', reject);
    req.end(body);
  });
}

const reviewBody = (uid: string, object: object, old: object) =>
  JSON.stringify(ingressAdmissionReview(uid, 'UPDATE', object as KubeObject, old));

/**
 * The webhook at `ingresses` Ingresses: the real HTTPS server, review and dry-run port over a
 * real index, renderer and `haproxy -c`, reviewing one UPDATE at a time as an API server sends
 * them. Kinds: `runtime` (a path changes: map entries only, no `haproxy -c`), `structural` (a
 * timeout annotation: a backend line changes, one `haproxy -c`), `other-class` (allowed at once).
 */
export async function webhookScenario(o: WebhookScenarioOptions): Promise<ReviewSamples[]> {
  const config = optedIn(o.config);
  const world = ingressWorld({ ingresses: o.ingresses }) as unknown as Record<string, object[]>;
  const index = new ResourceIndex();
  const watched = config.spec.watchedResources;
  index.configure(
    Object.fromEntries(
      Object.entries(watched).map(([n, w]) => [n, { indexBy: w.indexBy, store: 'full' as const }]),
    ),
  );
  for (const name of Object.keys(watched)) {
    index.reset(name, undefined, (world[name] ?? []) as KubeObject[]);
    index.listed(name);
  }
  const dryRun = new AdmissionDryRun(
    index,
    new RenderService(),
    new ValidationService({ haproxyBin: o.haproxyBin }),
  );
  let passed: RenderedOutputs | undefined;
  const deps = {
    dryRun,
    testBudgetMs: 5000,
    current: () => config,
    baseline: () => passed,
    passed: (_c: TemplateConfig, out: RenderedOutputs) => (passed = out),
  };
  const results = new Map<string, Review>();
  const server = await startAdmissionServer(
    // no answer deadline here: the bench measures how long a review takes, however long
    { address: '127.0.0.1', port: 0, pair: o.tls, timeoutMs: 600_000 },
    async (body) => {
      const req = parseAdmissionReview(body);
      const r = await review(deps, req);
      results.set(req.uid, r);
      return admissionResponse(req.uid, r.verdict);
    },
  );
  const wo = { ingresses: o.ingresses };
  const n = o.counts ?? {};
  const otherClass = (i: number, variant: number) => {
    const ing = ingressAt(i, wo, variant) as { spec: { ingressClassName: string } };
    ing.spec.ingressClassName = 'nginx';
    return ing;
  };
  /** kind, reviews, the new object, the old object (the generated Ingress unless given) */
  const kinds: [string, number, (i: number) => object, ((i: number) => object)?][] = [
    ['runtime', n.runtime ?? 30, (i) => ingressAt(i, wo, 1 + (i % 7))],
    [
      'structural',
      n.structural ?? 10,
      (i) => {
        const ing = ingressAt(i, wo) as KubeObject & { metadata: { annotations?: object } };
        ing.metadata.annotations = { 'haproxy-haptic.org/timeout-server': `${10 + i}s` };
        return ing;
      },
    ],
    // an Ingress of another class changing (one moving away from ours is rendered: it leaves)
    ['other-class', n.otherClass ?? 30, (i) => otherClass(i, 1), (i) => otherClass(i, 0)],
  ];
  try {
    // the first review runs the full check and becomes the runtime-only baseline
    await post(
      server.port,
      o.tls.cert,
      reviewBody('warm-up', ingressAt(0, wo, 1), ingressAt(0, wo)),
    );
    const out: ReviewSamples[] = [];
    for (const [kind, count, make, before = (i: number) => ingressAt(i, wo)] of kinds) {
      const ms: number[] = [];
      const outcomes: Record<string, number> = {};
      for (let k = 0; k < count; k++) {
        const i = (k * 7919) % o.ingresses;
        const uid = `${kind}-${k}`;
        const started = performance.now();
        await post(server.port, o.tls.cert, reviewBody(uid, make(i), before(i)));
        ms.push(performance.now() - started);
        const r = results.get(uid);
        const label = `${r?.result ?? '?'}${r?.haproxyCheck === undefined ? '' : r.haproxyCheck ? '+haproxy-c' : '+structural-only'}`;
        outcomes[label] = (outcomes[label] ?? 0) + 1;
      }
      out.push({ kind, ms, outcomes });
    }
    return out;
  } finally {
    await server.close();
  }
}
