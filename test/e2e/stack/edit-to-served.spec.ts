import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '#testbed/kube-sim';
import { echoApp, ECHO_SERVICE_PORT, send, Stack, waitFor } from '#testbed/stack';

// An Ingress edit, measured through real requests: from the API write to the first response
// served by the new backend, on every HAProxy pod. The delays are printed, never asserted.
const NS = 'edits';
const HOST = 'edit.example';
/** Answers in a row from the new backend that count as switched (see switchedTo). */
const SWITCHED = 5;

const ingress = (service: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: NS, name: 'edit' },
  spec: {
    ingressClassName: 'haptic',
    rules: [
      {
        host: HOST,
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: service, port: { number: ECHO_SERVICE_PORT } } },
            },
          ],
        },
      },
    ],
  },
});

describe('an Ingress edit is served through every HAProxy pod', () => {
  let stack: Stack;

  const servedBy = async (ip: string): Promise<string | undefined> => {
    const r = await send({
      address: ip,
      port: stack.topology.httpPort,
      host: HOST,
      timeoutMs: 2000,
    });
    return r.status === 200 ? (JSON.parse(r.body) as { service: string }).service : undefined;
  };

  /**
   * The time of the first of SWITCHED answers in a row from `next` through `pod`: one answer
   * alone may come from a new worker while the old one still accepts connections.
   */
  const switchedTo = (pod: { name: string; ip: string }, next: string): Promise<number> => {
    let streak = 0;
    let first = 0;
    let seen: string | undefined;
    return waitFor(
      () =>
        `${SWITCHED} answers in a row from ${next} through ${pod.name} (last: ${seen ?? 'none'})`,
      async () => {
        seen = await servedBy(pod.ip);
        if (seen !== next) {
          streak = 0;
          return undefined;
        }
        if (streak++ === 0) first = performance.now();
        return streak >= SWITCHED ? first : undefined;
      },
      60_000,
      5,
    );
  };

  beforeAll(async () => {
    // The default timings (debounce 100 ms, maxDelay 1 s), as the demo runs.
    stack = await Stack.start();
    await stack.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      ...echoApp(NS, 'blue'),
      ...echoApp(NS, 'green'),
      ingress('blue'),
    ]);
    for (const pod of await stack.haproxyPods())
      await waitFor(`blue through ${pod.name}`, async () =>
        (await servedBy(pod.ip)) === 'blue' ? true : undefined,
      );
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('switches the backend of a host: blue until the edit, green after, on both pods', async () => {
    const pods = await stack.haproxyPods();
    expect(pods).toHaveLength(2);
    const delays: number[] = [];
    let current = 'blue';
    for (let round = 0; round < 6; round++) {
      const next = current === 'blue' ? 'green' : 'blue';
      for (const pod of pods) expect(await servedBy(pod.ip)).toBe(current);
      const t0 = performance.now();
      await stack.apply(ingress(next));
      const served = await Promise.all(pods.map((pod) => switchedTo(pod, next)));
      delays.push(Math.max(...served) - t0);
      current = next;
    }
    const sorted = [...delays].sort((a, b) => a - b);
    console.log(
      `Ingress edit → served by every HAProxy pod (ms, 6 edits): ${delays.map((d) => d.toFixed(0)).join(', ')}; median ${sorted[3]!.toFixed(0)}`,
    );
    for (const pod of pods) expect(await servedBy(pod.ip)).toBe(current);
  });
});
