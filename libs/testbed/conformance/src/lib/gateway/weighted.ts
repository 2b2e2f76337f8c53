import type { Reply } from '#testbed/stack';
import {
  judgeReply,
  judgeShares,
  zeroWeightAnswers,
  type HttpExpectation,
  type Sent,
} from './judge.js';

/** One judged answer of a sample: why it fails its expectation (undefined when it holds) and the pod that served it. */
export interface Judged {
  readonly why?: string;
  readonly pod: string;
}

/** A sample's verdict: `fatal` fails the case (a weight-0 backend answered), `retry` fails this sample only. */
export interface SampleVerdict {
  readonly fatal?: string;
  readonly retry?: string;
}

/** The weighted backend a pod belongs to (its name is `<backend>-<hashes>`), else the pod's own name. */
export function backendOf(pod: string, weights: Readonly<Record<string, number>>): string {
  return Object.keys(weights).find((b) => pod.startsWith(`${b}-`)) ?? pod;
}

/** An HTTP answer judged in full (status, path, method, namespace, headers), as upstream's CompareRoundTrip does for each sampled one. */
export function judgeHttpAnswer(x: HttpExpectation, reply: Reply, sent: Sent): Judged {
  let pod = '';
  try {
    pod = (JSON.parse(reply.body) as { pod?: string }).pod ?? '';
  } catch {
    // not an echo body: judgeReply names it
  }
  const why = judgeReply(x, reply, sent);
  return why === undefined ? { pod } : { why, pod };
}

/**
 * One sample of upstream's weighted test: `total` calls, `inFlight` at a time, each answer judged
 * by `call`; every answer's pod is counted, so a weight-0 backend is caught whatever else failed.
 */
export async function sampleShares(
  call: (i: number) => Promise<Judged>,
  weights: Readonly<Record<string, number>>,
  total = 500,
  inFlight = 10,
): Promise<SampleVerdict> {
  const counts: Record<string, number> = {};
  let next = 0;
  let failure: string | undefined;
  const worker = async () => {
    while (next < total && failure === undefined) {
      const i = next++;
      const r = await call(i).catch((e: unknown): Judged => ({
        why: `request failed: ${String(e)}`,
        pod: '',
      }));
      if (r.pod !== '') {
        const b = backendOf(r.pod, weights);
        counts[b] = (counts[b] ?? 0) + 1;
      }
      if (r.why !== undefined) failure ??= `answer ${i}: ${r.why}`;
      if (zeroWeightAnswers(counts, weights)) failure ??= 'a backend of weight 0 answered';
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const fatal = zeroWeightAnswers(counts, weights);
  if (fatal) return { fatal };
  const retry = failure ?? judgeShares(counts, weights);
  return retry === undefined ? {} : { retry };
}

/** Upstream's retries: up to `tries` samples, the first that holds passes; a fatal verdict ends the test at once. */
export async function weightedTest(
  sample: () => Promise<SampleVerdict>,
  tries = 10,
  log: (line: string) => void = () => undefined,
): Promise<string | undefined> {
  const failed: string[] = [];
  for (let attempt = 1; attempt <= tries; attempt++) {
    const v = await sample();
    if (v.fatal !== undefined) return `sample ${attempt}: ${v.fatal}`;
    if (v.retry === undefined) return undefined;
    failed.push(`sample ${attempt}: ${v.retry}`);
    log(`weighted sample ${attempt} of ${tries} failed: ${v.retry}`);
  }
  return failed.join('; ');
}
