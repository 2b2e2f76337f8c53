import { get, host, ingress, type CaseTools, type NginxCase } from './cases.js';
import type { Answer, Req } from './http.js';
import { podCounts, showCounts } from './judge.js';

const byUri = host('hash-uri');
const byHeader = host('hash-header');

async function inTurn(t: CaseTools, pod: CaseTools['pods'][number], reqs: readonly Req[]) {
  const out: Answer[] = [];
  for (const r of reqs) out.push(await t.call(pod, r));
  return out;
}

/**
 * One key always reaches one pod (ingress-nginx's e2e: 10 requests, one pod), and 20 different
 * keys reach both pods of echo (so the key, not a fixed choice, picks the pod).
 */
function sticksByKey(same: () => Req, other: (i: number) => Req) {
  return async (t: CaseTools): Promise<string | undefined> => {
    for (const pod of t.pods) {
      const one = podCounts(await inTurn(t, pod, Array.from({ length: 10 }, same)));
      if (one.size !== 1 || one.has('?'))
        return `10 requests with one key through ${pod.address} were answered by ${showCounts(one)}`;
      const keys = Array.from({ length: 20 }, (_, i) => other(i));
      const many = podCounts(await inTurn(t, pod, keys));
      if (many.size !== 2 || many.has('?'))
        return `20 requests with different keys through ${pod.address} were answered by ${showCounts(many)} (2 pods ready)`;
    }
    return undefined;
  };
}

/** upstream-hash-by: consistent hashing on nginx variables. */
export const HASH_CASES: readonly NginxCase[] = [
  {
    name: 'upstream-hash-by: $request_uri sends one URI to one pod, different URIs over the pods',
    annotations: ['upstream-hash-by'],
    objects: [ingress('hash-uri', byUri, [['/']], { 'upstream-hash-by': '$request_uri' })],
    steps: [{ req: get(byUri, '/some/path?x=1'), expect: { status: 200, service: 'echo' } }],
    script: sticksByKey(
      () => get(byUri, '/some/path?x=1'),
      (i) => get(byUri, `/some/path?x=${i}`),
    ),
  },
  {
    name: 'upstream-hash-by: $http_x_user sends one user to one pod whatever the path',
    annotations: ['upstream-hash-by'],
    objects: [
      ingress('hash-header', byHeader, [['/']], {
        'upstream-hash-by': '$http_x_user',
        'load-balance': 'round_robin',
      }),
    ],
    steps: [
      {
        req: get(byHeader, '/', { headers: { 'X-User': 'alice' } }),
        expect: { status: 200, service: 'echo' },
      },
    ],
    script: sticksByKey(
      (() => {
        let n = 0;
        return () => get(byHeader, `/p${n++}`, { headers: { 'X-User': 'alice' } });
      })(),
      (i) => get(byHeader, '/', { headers: { 'X-User': `user-${i}` } }),
    ),
  },
];
