import { describe, expect, it } from 'vitest';
import type { Reply } from '#testbed/stack';
import { judgeShares } from './judge.js';
import { backendOf, judgeHttpAnswer, sampleShares, weightedTest, type Judged } from './weighted.js';

const W = { 'infra-backend-v1': 70, 'infra-backend-v2': 30, 'infra-backend-v3': 0 };
const sent = { scheme: 'http' as const, host: '127.0.0.1', port: 10080, path: '/' };
const x = { path: '/', namespace: 'gateway-conformance-infra', headers: { 'X-Jitter': '7' } };
const reply = (echo: Record<string, unknown>, status = 200): Reply => ({
  status,
  httpVersion: '1.1',
  headers: {},
  body: JSON.stringify({
    pod: 'infra-backend-v1-5d8f-abcde',
    namespace: 'gateway-conformance-infra',
    path: '/',
    method: 'GET',
    headers: { 'X-Jitter': ['7'] },
    ...echo,
  }),
});

/** A fake backend set answering call i from `pods(i)`, each answer otherwise correct. */
const answers =
  (pods: (i: number) => string, why?: (i: number) => string | undefined) =>
  (i: number): Promise<Judged> => {
    const w = why?.(i);
    return Promise.resolve(w === undefined ? { pod: pods(i) } : { pod: pods(i), why: w });
  };
// 70/30 exactly: calls 0..349 on v1, 350..499 on v2
const exact = (i: number) => (i < 350 ? 'infra-backend-v1-a-b' : 'infra-backend-v2-c-d');

describe('the weighted judge is as strict as upstream', () => {
  it('passes an exact 70/30 split over fully correct answers', async () => {
    expect(await sampleShares(answers(exact), W)).toEqual({});
  });

  it('fails the case on a single answer from a weight-0 backend, shares otherwise fine', async () => {
    const one = (i: number) => (i === 123 ? 'infra-backend-v3-e-f' : exact(i));
    const v = await sampleShares(answers(one), W);
    expect(v.fatal).toMatch(/weight 0 answered: infra-backend-v3 \(1×\)/);
    // no retry cures it: the test ends on the first sample
    let samples = 0;
    const why = await weightedTest(() => {
      samples += 1;
      return sampleShares(answers(one), W);
    });
    expect(why).toMatch(/^sample 1: .*infra-backend-v3/);
    expect(samples).toBe(1);
  });

  it('judgeShares alone refuses a weight-0 answer within the ±5 points band', () => {
    expect(
      judgeShares({ 'infra-backend-v1': 350, 'infra-backend-v2': 140, 'infra-backend-v3': 10 }, W),
    ).toMatch(/weight 0/);
    expect(judgeShares({ 'infra-backend-v1': 500 }, { ...W, 'infra-backend-v2': 0.01 })).toMatch(
      /no traffic/,
    );
  });

  it('fails a sample when any answer is wrong (namespace, path, method) though every pod is right', async () => {
    for (const [echo, want] of [
      [{ namespace: 'other' }, /namespace other/],
      [{ path: '/x' }, /path \/x/],
      [{ method: 'POST' }, /method POST/],
      [{ headers: {} }, /X-Jitter: \(none\)/],
    ] as const) {
      const bad = judgeHttpAnswer(x, reply(echo), sent);
      expect(bad.why).toMatch(want);
      expect(bad.pod).toBe('infra-backend-v1-5d8f-abcde');
      const v = await sampleShares(
        answers(exact, (i) => (i === 42 ? bad.why : undefined)),
        W,
      );
      expect(v.retry).toMatch(/^answer 42: /);
      expect(v.fatal).toBeUndefined();
    }
    expect(judgeHttpAnswer(x, reply({}), sent)).toEqual({ pod: 'infra-backend-v1-5d8f-abcde' });
    expect(judgeHttpAnswer(x, reply({}, 503), sent).why).toMatch(/status 503/);
  });

  it('retries a sample whose shares are off, as upstream (10 samples, first good one passes)', async () => {
    let n = 0;
    const skewed = (i: number) => (i < 400 ? 'infra-backend-v1-a-b' : 'infra-backend-v2-c-d');
    const why = await weightedTest(() => {
      n += 1;
      return sampleShares(answers(n < 3 ? skewed : exact), W);
    });
    expect(why).toBeUndefined();
    expect(n).toBe(3);
    expect(await weightedTest(() => sampleShares(answers(skewed), W), 2)).toMatch(
      /sample 1: infra-backend-v1: 80\.0 %.*; sample 2: /,
    );
  });

  it('names backends by whole name (v1 is not v10) and refuses strangers', async () => {
    expect(backendOf('infra-backend-v10-a-b', { 'infra-backend-v1': 1 })).toBe(
      'infra-backend-v10-a-b',
    );
    const v = await sampleShares(
      answers((i) => (i === 0 ? 'stranger-a-b' : exact(i))),
      W,
    );
    expect(v.retry).toMatch(/unexpected backends stranger-a-b/);
  });
});
