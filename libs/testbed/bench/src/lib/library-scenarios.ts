import { generateCertificate } from '#testbed/kube-sim';
import { loadIngressLibrary } from './ingress-library.js';
import { distribution, fromFigure, type Measure } from './measures.js';
import type { Progress } from './progress.js';
import { renderScenario } from './render-scenario.js';
import { webhookScenario } from './webhook-scenario.js';

/** `render`: the render scenario (libs/testbed/bench render-scenario) at each size, as measures. */
export async function renderMeasures(
  root: string,
  sizes: readonly number[],
  reps: number,
  haproxyBin: string,
  progress: Progress,
): Promise<Measure[]> {
  const config = await loadIngressLibrary(root);
  const tls = await generateCertificate({ commonName: 'bench', dnsNames: ['*.example.com'] });
  const figures = await renderScenario({
    config,
    sizes,
    repetitions: reps,
    haproxyBin,
    tls,
    log: (l) => progress.step(l),
  });
  return figures.map((f) => fromFigure(f, reps));
}

/** `webhook`: the webhook scenario (libs/testbed/bench webhook-scenario), admission time per kind and overall. */
export async function webhookMeasures(
  root: string,
  ingresses: number,
  counts: { runtime?: number; structural?: number; otherClass?: number } | undefined,
  haproxyBin: string,
  progress: Progress,
): Promise<Measure[]> {
  const config = await loadIngressLibrary(root);
  const tls = await generateCertificate({ ipAddresses: ['127.0.0.1'] });
  progress.step(`admission reviews at ${ingresses} Ingresses`);
  const samples = await webhookScenario({
    config,
    ingresses,
    haproxyBin,
    tls,
    ...(counts ? { counts } : {}),
  });
  const out = samples.map((s) => distribution(`webhook.${s.kind}`, 'ms', s.ms, ingresses));
  out.push(
    distribution(
      'webhook.all',
      'ms',
      samples.flatMap((s) => s.ms),
      ingresses,
    ),
  );
  return out;
}
