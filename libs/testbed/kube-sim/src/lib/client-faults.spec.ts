/* eslint-disable @typescript-eslint/no-explicit-any -- tests read API JSON loosely */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubeSim } from './kube-sim.js';

let sim: KubeSim;
let a: string; // token of replica A (cut off in the tests)
let b: string; // token of replica B (keeps the API)

const headers = (token: string, ua = 'haptic-test') => ({
  authorization: `Bearer ${token}`,
  'user-agent': ua,
  'content-type': 'application/json',
});

const get = (token: string, path: string, ua?: string) =>
  fetch(sim.url + path, { headers: headers(token, ua) });

/** An open watch whose events (and end) are collected as they arrive. */
function openWatch(token: string, path: string, ua?: string) {
  const events: any[] = [];
  const state = { ended: false, error: undefined as unknown };
  const ac = new AbortController();
  const done = (async () => {
    try {
      const res = await fetch(sim.url + path, { headers: headers(token, ua), signal: ac.signal });
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = (await reader.read()) as { value?: Uint8Array; done: boolean };
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
        }
      }
    } catch (e) {
      state.error = e;
    }
    state.ended = true;
  })();
  return { events, state, done, stop: () => ac.abort() };
}

const until = async (cond: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((ok) => setTimeout(ok, 10));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
};

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

beforeAll(async () => {
  sim = await KubeSim.start({ token: true });
  a = (await sim.addClient()).token;
  b = (await sim.addClient('replica-b-token')).token;
});
afterAll(async () => sim.stop());
beforeEach(async () => sim.reset());

const cmPath = '/api/v1/namespaces/default/configmaps';
const watchPath = `${cmPath}?watch=true&resourceVersion=${'0'}`;

describe('clients with their own tokens', () => {
  it('accepts the main token and every added one, and refuses any other with 401', async () => {
    expect((await get(sim.token!, cmPath)).status).toBe(200);
    expect((await get(a, cmPath)).status).toBe(200);
    expect((await get(b, cmPath)).status).toBe(200);
    expect((await get('nobody', cmPath)).status).toBe(401);
    expect(sim.kubeconfig).toContain(sim.token!);
    expect((await sim.addClient('t-3')).kubeconfig).toContain('token: t-3');
  });
});

describe('cutOff one client', () => {
  it('fail: that client gets 503 on every request and its watch ends; the other client keeps the API', async () => {
    const wa = openWatch(a, watchPath);
    const wb = openWatch(b, watchPath);
    await until(() => sim.openWatches === 2, 'two watches');
    const id = sim.faults.cutOff({ token: a });
    await until(() => wa.state.ended, 'the cut client’s watch to end');
    const res = await get(a, cmPath);
    expect(res.status).toBe(503);
    expect(((await res.json()) as any).reason).toBe('ServiceUnavailable');
    expect((await get(a, `${cmPath}?watch=true`)).status).toBe(503);
    const created = await fetch(sim.url + cmPath, {
      method: 'POST',
      headers: headers(b),
      body: JSON.stringify(cm('from-b')),
    });
    expect(created.status).toBe(201);
    await until(() => wb.events.length === 1, 'B’s watch event');
    expect(wb.events[0].object.metadata.name).toBe('from-b');
    expect(wb.state.ended).toBe(false);
    expect(wa.events).toEqual([]);
    sim.faults.restore(id);
    expect((await get(a, cmPath)).status).toBe(200);
    wb.stop();
    await wb.done;
  });

  it('drop: the client selected by User-Agent sees its connections reset, others are answered', async () => {
    const wa = openWatch(sim.token!, watchPath, 'haptic/replica-a');
    await until(() => sim.openWatches === 1, 'the watch');
    sim.faults.cutOff({ userAgent: 'replica-a', mode: 'drop' });
    await wa.done;
    expect(wa.state.error).toBeInstanceOf(Error);
    await expect(get(sim.token!, cmPath, 'haptic/replica-a')).rejects.toThrow();
    expect((await get(sim.token!, cmPath, 'haptic/replica-b')).status).toBe(200);
    sim.faults.clear();
    expect((await get(sim.token!, cmPath, 'haptic/replica-a')).status).toBe(200);
  });

  it('hang: requests are never answered and the watch delivers nothing until restore resets them', async () => {
    const wa = openWatch(a, watchPath);
    const wb = openWatch(b, watchPath);
    await until(() => sim.openWatches === 2, 'two watches');
    const id = sim.faults.cutOff({ token: a, mode: 'hang' });
    let settled = false;
    const pending = get(a, cmPath).then(
      () => (settled = true),
      () => (settled = true),
    );
    await sim.apply(cm('while-cut'));
    await until(() => wb.events.length === 1, 'B’s watch event');
    // B's request after A's was answered and B's watch saw the write: A still waits, its watch saw nothing.
    expect((await get(b, cmPath)).status).toBe(200);
    expect(settled).toBe(false);
    expect(wa.events).toEqual([]);
    expect(wa.state.ended).toBe(false);
    sim.faults.restore(id);
    await pending;
    await wa.done;
    expect(wa.state.error).toBeInstanceOf(Error);
    expect(wa.events).toEqual([]);
    expect((await get(a, cmPath)).status).toBe(200);
    wb.stop();
    await wb.done;
  });

  it('over HTTP: POST /kube-sim/faults/cut-off and /faults/restore', async () => {
    const post = (action: string, body: unknown) =>
      fetch(`${sim.url}/kube-sim/${action}`, {
        method: 'POST',
        headers: headers(sim.token!),
        body: JSON.stringify(body),
      });
    const cut = await post('faults/cut-off', { token: a, code: 500 });
    const { id } = (await cut.json()) as { id: string };
    expect((await get(a, cmPath)).status).toBe(500);
    expect((await get(b, cmPath)).status).toBe(200);
    expect((await post('faults/cut-off', { mode: 'hang' })).status).toBe(400);
    expect((await post('faults/restore', { id })).status).toBe(200);
    expect((await get(a, cmPath)).status).toBe(200);
  });

  it('refuses a cut that selects no client', () => {
    expect(() => sim.faults.cutOff({ mode: 'fail' })).toThrow(/userAgent or a token/);
  });
});
