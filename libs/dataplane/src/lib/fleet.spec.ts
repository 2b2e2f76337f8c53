import { describe, expect, it, vi } from 'vitest';
import type { HaproxyPod, ValidatedRender } from '#events';
import { DataplaneRequestError } from '../dataplane.errors.js';
import { Fleet, type PodDeployResult, type PodReadBack } from './fleet.js';
import type { SyncResult } from './sync-engine.js';

const pod = (name: string, address = `127.0.0.${name.length}`): HaproxyPod => ({
  namespace: 'ns',
  name,
  address,
  dataplanePort: 5555,
});
const render = (hash: string): ValidatedRender => ({
  hash,
  configGeneration: 1,
  outputs: { haproxyConfig: `# ${hash}\n`, maps: {}, files: {}, sslCertificates: {}, crtLists: {} },
});
const outcome: SyncResult = {
  reloaded: true,
  reloadId: '1',
  operations: [{ kind: 'structural', target: 'backend b: directives changed', runtime: false }],
  reloadReasons: ['backend b: directives changed'],
  version: 2,
};
const files = { config: 'global\n', maps: {}, certs: {}, general: {} };

/** Waits (polling, not sleeping) until the fleet's first pod reports `hash` deployed. */
const deployed = (fleet: Fleet, hash: string) =>
  vi.waitFor(() => expect(fleet.status()[0]?.deployedHash).toBe(hash), {
    timeout: 10_000,
    interval: 2,
  });

function setup(opts: { maxParallel?: number; fail?: (url: string) => boolean } = {}) {
  const calls: { url: string; hash: string }[] = [];
  const results: PodDeployResult[] = [];
  const readBacks: PodReadBack[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const gates: (() => void)[] = [];
  const fleet = new Fleet({
    scheme: 'http',
    minDeploymentIntervalMs: 0,
    maxParallel: opts.maxParallel ?? 10,
    identity: 'test',
    timeoutMs: 1000,
    onResult: (r) => void results.push(r),
    onReadBack: (r) => void readBacks.push(r),
    read: () => Promise.resolve(files),
    sleep: () => Promise.resolve(),
    deploy: async (client, r) => {
      calls.push({ url: client.endpoint.url, hash: r.hash });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight--;
      if (opts.fail?.(client.endpoint.url)) throw new Error('refused');
      return outcome;
    },
  });
  const releaseAll = async () => {
    for (let i = 0; i < 50 && (gates.length > 0 || fleet.status().some((s) => s.busy)); i++) {
      for (const g of gates.splice(0)) g();
      await new Promise((r) => setImmediate(r));
    }
  };
  const stop = async () => {
    const stopped = fleet.stop();
    let done = false;
    void stopped.then(() => (done = true));
    for (let i = 0; i < 50 && !done; i++) {
      for (const g of gates.splice(0)) g();
      await new Promise((r) => setImmediate(r));
    }
    await stopped;
  };
  return {
    fleet,
    calls,
    results,
    readBacks,
    releaseAll,
    stop,
    maxInFlight: () => maxInFlight,
  };
}

describe('Fleet', () => {
  it('deploys only the newest render to a busy pod (latest wins)', async () => {
    const { fleet, calls, releaseAll } = setup();
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setPods([pod('a')]);
    fleet.setRender(render('r1'));
    await new Promise((r) => setImmediate(r));
    fleet.setRender(render('r2'));
    fleet.setRender(render('r3'));
    await releaseAll();
    expect(calls.map((c) => c.hash)).toEqual(['r1', 'r3']);
  });

  it('gives a new pod the current render at once, and leaves pods that are already current alone', async () => {
    const { fleet, calls, releaseAll } = setup();
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setRender(render('r1'));
    fleet.setPods([pod('a')]);
    await releaseAll();
    fleet.setPods([pod('a'), pod('bb')]);
    await releaseAll();
    expect(calls).toEqual([
      { url: 'http://127.0.0.1:5555', hash: 'r1' },
      { url: 'http://127.0.0.2:5555', hash: 'r1' },
    ]);
  });

  it('waits for credentials before deploying', async () => {
    const { fleet, calls, releaseAll } = setup();
    fleet.setPods([pod('a')]);
    fleet.setRender(render('r1'));
    await releaseAll();
    expect(calls).toHaveLength(0);
    fleet.setCredentials({ username: 'u', password: 'p' });
    await releaseAll();
    expect(calls).toHaveLength(1);
  });

  it('deploys to at most maxParallel pods at once', async () => {
    const { fleet, calls, releaseAll, maxInFlight } = setup({ maxParallel: 2 });
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setRender(render('r1'));
    fleet.setPods(['a', 'bb', 'ccc', 'dddd', 'eeeee'].map((n) => pod(n)));
    await releaseAll();
    expect(calls).toHaveLength(5);
    expect(maxInFlight()).toBe(2);
  });

  it('reports a failed pod and keeps serving the others', async () => {
    const { fleet, results, releaseAll, stop } = setup({
      fail: (url) => url.includes('127.0.0.1:'),
    });
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setRender(render('r1'));
    fleet.setPods([pod('a'), pod('bb')]);
    await releaseAll();
    const byPod = Object.fromEntries(results.slice(0, 2).map((r) => [r.pod.name, r.ok]));
    expect(byPod).toEqual({ a: false, bb: true });
    expect(results.filter((r) => r.pod.name === 'a').length).toBeGreaterThan(1); // retried
    await stop();
  });

  it('reads every new pod back once before deploying to it', async () => {
    const { fleet, calls, readBacks, releaseAll } = setup();
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setPods([pod('a'), pod('bb')]);
    await releaseAll();
    expect(readBacks.map((r) => [r.pod.name, r.files])).toEqual([
      ['a', files],
      ['bb', files],
    ]);
    expect(calls).toHaveLength(0); // nothing to deploy yet
    fleet.setRender(render('r1'));
    await releaseAll();
    expect(calls).toHaveLength(2);
    expect(readBacks).toHaveLength(2);
  });

  it('uses rotated credentials, and the previous ones for a pod that still refuses the new', async () => {
    const used: string[] = [];
    const fleet = new Fleet({
      scheme: 'http',
      minDeploymentIntervalMs: 0,
      maxParallel: 1,
      identity: 'test',
      timeoutMs: 1000,
      onResult: () => undefined,
      read: () => Promise.resolve(files),
      deploy: (client) => {
        used.push(client.endpoint.password);
        if (client.endpoint.password === 'new')
          return Promise.reject(new DataplaneRequestError('401', 401));
        return Promise.resolve(outcome);
      },
    });
    fleet.setCredentials({ username: 'u', password: 'old' });
    fleet.setPods([pod('a')]);
    fleet.setRender(render('r1'));
    await deployed(fleet, 'r1');
    fleet.setCredentials({ username: 'u', password: 'new' });
    fleet.setRender(render('r2'));
    await deployed(fleet, 'r2');
    await fleet.stop();
    expect(used).toEqual(['old', 'new', 'old']);
    expect(fleet.status()[0]).toMatchObject({ deployedHash: 'r2', consecutiveFailures: 0 });
  });

  it('paces neither a runtime-only change nor a reload that arrived during one (issue 37)', async () => {
    let t = 0;
    const slept: number[] = [];
    const runtimeOnly: SyncResult = {
      ...outcome,
      reloaded: false,
      reloadId: null,
      reloadReasons: [],
    };
    const during: { rt1?: () => void } = {};
    const fleet = new Fleet({
      scheme: 'http',
      minDeploymentIntervalMs: 1000,
      staggerMs: 0,
      maxParallel: 1,
      identity: 'test',
      timeoutMs: 1000,
      now: () => t,
      sleep: (ms) => {
        slept.push(ms);
        t += ms;
        return Promise.resolve();
      },
      onResult: () => undefined,
      read: () => Promise.resolve(files),
      // hashes starting with "rt" are runtime-only; others reload (through the gate)
      deploy: async (_c, r, o) => {
        if (r.hash.startsWith('rt')) {
          during.rt1?.();
          return runtimeOnly;
        }
        await o.beforeReload?.(['backend b: directives changed']);
        return outcome;
      },
    });
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setPods([pod('a')]);
    fleet.setRender(render('s1'));
    await deployed(fleet, 's1');
    t += 100;
    // s2 arrives while rt1's runtime operations go: no reload under way, so s2 is lone
    during.rt1 = () => fleet.setRender(render('s2'));
    fleet.setRender(render('rt1'));
    await deployed(fleet, 's2');
    await fleet.stop();
    expect(slept).toEqual([]); // 100 ms after s1's reload began, and still no wait
    expect(fleet.status()[0]?.deployedHash).toBe('s2');
  });

  /** One pod, a fake clock, and reloads that take `reloadMs` of it after the gate. */
  function timedFleet(intervalMs: number, reloadMs: number, reportReloaded = false) {
    const clock = { t: 0 };
    /** Called while a deployment runs (after its gate): a render handed over then is a burst. */
    const during: { next?: (() => void) | undefined } = {};
    const slept: number[] = [];
    const fleet = new Fleet({
      scheme: 'http',
      minDeploymentIntervalMs: intervalMs,
      staggerMs: 0,
      maxParallel: 1,
      identity: 'test',
      timeoutMs: 1000,
      now: () => clock.t,
      sleep: (ms) => {
        slept.push(ms);
        clock.t += ms;
        return Promise.resolve();
      },
      onResult: () => undefined,
      read: () => Promise.resolve(files),
      // each reload takes reloadMs (the pod's haproxy -c and the re-exec)
      deploy: async (_c, _r, o) => {
        await o.beforeReload?.(['backend b: directives changed']);
        clock.t += reloadMs;
        if (reportReloaded) o.onReloaded?.(); // HAProxy runs it; the deployment is finishing
        const next = during.next;
        during.next = undefined;
        next?.();
        return outcome;
      },
    });
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setPods([pod('a')]);
    const deploy = async (hash: string) => {
      fleet.setRender(render(hash));
      await deployed(fleet, hash);
    };
    return { fleet, clock, slept, deploy, during };
  }

  it('counts minDeploymentInterval from the start of the last reload, not its end (issue 37)', async () => {
    const { fleet, clock, slept, deploy } = timedFleet(500, 600);
    await deploy('s1');
    clock.t += 100; // 700 ms after s1's reload began: no wait
    await deploy('s2');
    await deploy('s3'); // at once: 600 ms after s2's began, still no wait
    await fleet.stop();
    expect(slept).toEqual([]);
    expect(fleet.status()[0]?.deployedHash).toBe('s3');
  });

  it('waits out minDeploymentInterval when a burst would start reloads more often than it', async () => {
    const { fleet, slept, during } = timedFleet(1000, 300);
    // s2 arrives during s1's reload: 300 ms after s1's reload began, 700 ms to go
    during.next = () => fleet.setRender(render('s2'));
    fleet.setRender(render('s1'));
    await deployed(fleet, 's2');
    await fleet.stop();
    expect(slept).toEqual([700]);
  });

  it('counts a change that arrives once the reload succeeded as lone (issue 37)', async () => {
    const { fleet, slept, during } = timedFleet(1000, 300, true);
    during.next = () => fleet.setRender(render('s2'));
    fleet.setRender(render('s1'));
    await deployed(fleet, 's2');
    await fleet.stop();
    expect(slept).toEqual([]);
  });

  it('lets a lone change reload at once, however soon after the last reload (issue 37)', async () => {
    const { fleet, slept, deploy } = timedFleet(1000, 300);
    await deploy('s1');
    await deploy('s2'); // found the pod idle: not paced
    await fleet.stop();
    expect(slept).toEqual([]);
    expect(fleet.status()[0]?.deployedHash).toBe('s2');
  });

  it("staggers reloads across pods, never a lone pod's next reload (issue 37)", async () => {
    let t = 0;
    const slept: number[] = [];
    const fleet = new Fleet({
      scheme: 'http',
      minDeploymentIntervalMs: 0,
      staggerMs: 200,
      maxParallel: 10,
      identity: 'test',
      timeoutMs: 1000,
      now: () => t,
      sleep: (ms) => {
        slept.push(ms);
        t += ms;
        return Promise.resolve();
      },
      onResult: () => undefined,
      read: () => Promise.resolve(files),
      deploy: async (_c, _r, o) => {
        await o.beforeReload?.(['backend b: directives changed']);
        return outcome;
      },
    });
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setPods([pod('a')]);
    fleet.setRender(render('s1'));
    await new Promise((r) => setTimeout(r, 10));
    t += 10;
    fleet.setRender(render('s2')); // a lone pod's next structural change: no stagger
    await new Promise((r) => setTimeout(r, 10));
    expect(slept).toEqual([]);
    fleet.setPods([pod('a'), pod('bb')]);
    fleet.setRender(render('s3')); // two pods: the second reload waits out the stagger
    await new Promise((r) => setTimeout(r, 10));
    await fleet.stop();
    expect(slept).toEqual([200]);
    expect(fleet.status().map((p) => p.deployedHash)).toEqual(['s3', 's3']);
  });
});

describe('Fleet: a runtime-only deployment', () => {
  it('is reported once applied; a failure writing the stored copy after it is reported and repaired next pass', async () => {
    const results: PodDeployResult[] = [];
    const seen: { recover: boolean; known: boolean; wholeCheck: boolean }[] = [];
    const applied: SyncResult = {
      reloaded: false,
      reloadId: null,
      operations: [{ kind: 'map.replace', target: 'hosts.map', runtime: true }],
      reloadReasons: [],
      version: 1,
      known: { files: { ...files, version: 1 }, caps: { runtimeCerts: true, maxCertPayload: 1 } },
    };
    const fleet = new Fleet({
      scheme: 'http',
      minDeploymentIntervalMs: 0,
      maxParallel: 1,
      identity: 'test',
      timeoutMs: 1000,
      onResult: (r) => void results.push(r),
      read: () => Promise.resolve(files),
      sleep: () => Promise.resolve(),
      now: () => 0, // no backoff to wait out
      deploy: async (_client, _r, o) => {
        seen.push({
          recover: o.recover === true,
          known: o.known !== undefined,
          wholeCheck: o.wholeCheck !== undefined,
        });
        if (seen.length === 1) {
          o.onFirstWrite?.();
          await o.onApplied?.(applied);
          throw new Error('storage write refused'); // after the runtime operations
        }
        return applied;
      },
    });
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setPods([pod('a')]);
    fleet.setRender({ ...render('r1'), pendingCheck: Promise.resolve(true) });
    await vi.waitFor(() => expect(results).toHaveLength(3), { timeout: 10_000, interval: 2 });
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    // the retry reloads from storage (recover) and reads the pod instead of trusting memory
    expect(seen).toEqual([
      { recover: false, known: false, wholeCheck: true },
      { recover: true, known: false, wholeCheck: true },
    ]);
    expect(fleet.status()[0]?.deployedHash).toBe('r1');
    await fleet.stop();
  });

  it('does not hold the next render while its stored copy is written; the next stores after it', async () => {
    const results: PodDeployResult[] = [];
    const storing: { hash: string; store: () => void; fail: (e: Error) => void }[] = [];
    const seen: { hash: string; prior: boolean; known: boolean; recover: boolean }[] = [];
    const applied = (hash: string): SyncResult => ({
      reloaded: false,
      reloadId: null,
      operations: [{ kind: 'server.set', target: 'be/s1', runtime: true }],
      reloadReasons: [],
      version: 1,
      known: { files: { ...files, version: 1 }, caps: { runtimeCerts: true, maxCertPayload: 1 } },
      stages: { runtime: hash.length },
    });
    const fleet = new Fleet({
      scheme: 'http',
      minDeploymentIntervalMs: 0,
      maxParallel: 1,
      identity: 'test',
      timeoutMs: 1000,
      onResult: (r) => void results.push(r),
      read: () => Promise.resolve(files),
      sleep: () => Promise.resolve(),
      now: () => 0,
      deploy: async (_client, r, o) => {
        seen.push({
          hash: r.hash,
          prior: o.priorStorage !== undefined,
          known: o.known !== undefined,
          recover: o.recover === true,
        });
        o.onFirstWrite?.();
        await o.onApplied?.(applied(r.hash));
        // the stored copy: behind the previous one (as syncPod does), then this one's own write
        await o.priorStorage;
        await new Promise<void>((store, fail) => storing.push({ hash: r.hash, store, fail }));
        return { ...applied(r.hash), version: 2 };
      },
    });
    fleet.setCredentials({ username: 'u', password: 'p' });
    fleet.setPods([pod('a')]);
    await vi.waitFor(() => expect(fleet.status()[0]?.busy).toBe(false));
    fleet.setRender(render('r1'));
    await vi.waitFor(() => expect(storing.map((x) => x.hash)).toEqual(['r1']));
    fleet.setRender(render('r2'));
    // r2's runtime operations went while r1's stored copy is still being written
    await vi.waitFor(() => expect(results.map((r) => r.hash)).toEqual(['r1', 'r2']));
    expect(seen).toEqual([
      { hash: 'r1', prior: false, known: false, recover: false },
      { hash: 'r2', prior: true, known: true, recover: false },
    ]);
    const r2 = results[1]!;
    expect(r2.ok && r2.outcome.stages?.queue).toBeGreaterThanOrEqual(0);
    expect(storing.map((x) => x.hash)).toEqual(['r1']); // r2 stores only after r1
    // r1's stored copy is refused: r2 (stored behind it) fails too, and the pod is repaired
    storing[0]!.fail(new Error('storage write refused'));
    await vi.waitFor(() =>
      expect(results.map((r) => r.ok)).toEqual([true, true, false, false, true]),
    );
    expect(seen[2]).toEqual({ hash: 'r2', prior: false, known: false, recover: true });
    await vi.waitFor(() => expect(storing).toHaveLength(2));
    storing[1]!.store();
    await vi.waitFor(() =>
      expect(fleet.status()[0]).toMatchObject({ deployedHash: 'r2', busy: false }),
    );
    await fleet.stop();
  });
});
