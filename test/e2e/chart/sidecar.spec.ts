/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- API objects are read loosely */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '#testbed/kube-sim';
import { cliCommand, parseMasterShowProc, type MasterProcTable } from '#testbed/testing';
import {
  CREDENTIALS,
  echoApp,
  ECHO_SERVICE_PORT,
  send,
  Stack,
  waitFor,
  type PodAddress,
} from '#testbed/stack';
import { chartDir } from './helm.js';

// The chart's default data plane, installed with `helm install` on kube-sim + node-sim: HAProxy in
// its own container (haptic's HAProxy image, master-worker, master socket on a shared emptyDir)
// and haptic's agent in the sidecar, attached to that master. Nothing here sets
// haproxy.dataplane.mode or the HAProxy image: the stack gives the chart only its test-bed ports,
// replicas, timings and a password.
const NS = 'haptic';
const APP = 'apps';
const HOST = 'sidecar.example';
const NEW_PASSWORD = 'rotated-Password-2';

const ingress = (paths: { path: string; service: string }[]): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: APP, name: 'site' },
  spec: {
    rules: [
      {
        host: HOST,
        http: {
          paths: paths.map((p) => ({
            path: p.path,
            pathType: 'Prefix',
            backend: { service: { name: p.service, port: { number: ECHO_SERVICE_PORT } } },
          })),
        },
      },
    ],
  },
});

/** The command line of a process of this machine (node-sim containers are processes). */
const cmdline = (pid: number): string[] =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const parentPid = (pid: number): number =>
  Number(/^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
/** The pid of a `node-sim://<pid>` container ID. */
const pidOf = (status: any): number => Number(/^node-sim:\/\/(\d+)$/.exec(status.containerID)?.[1]);

/** The master socket HAProxy was started on: its `-S <path>,mode,600` argument. */
const masterSocketOf = (pid: number): string => {
  const args = cmdline(pid);
  const value = args[args.indexOf('-S') + 1] ?? '';
  return value.split(',')[0]!;
};

describe('the chart by default: HAProxy and the agent sidecar, two containers of one pod', () => {
  let stack: Stack;

  const get = (path: string): Promise<any> => stack.get(path);
  const pod = (name: string) => get(`/api/v1/namespaces/${NS}/pods/${name}`);
  /** Both containers' processes of one HAProxy pod, from its container statuses. */
  const processes = async (p: PodAddress) => {
    const statuses: any[] = (await pod(p.name)).status.containerStatuses;
    const of = (name: string) => statuses.find((s) => s.name === name);
    return { haproxy: pidOf(of('haproxy')), agent: pidOf(of('dataplane')), statuses };
  };
  /**
   * The master's `show proc`. The master closes its socket for a moment while it re-executes
   * for a reload (one may still be under way from the controller's first deployments), so the
   * question is asked again until the master answers (30 s).
   */
  const showProc = (p: PodAddress): Promise<MasterProcTable> =>
    waitFor(
      `show proc on ${p.name}'s master socket`,
      async () =>
        parseMasterShowProc(
          await cliCommand(masterSocketOf((await processes(p)).haproxy), 'show proc'),
        ),
      30_000,
    );
  /** What `service` answered through one HAProxy pod, or '' (with the echo pod's name). */
  const through = async (p: PodAddress, path = '/') => {
    const r = await send({
      address: p.ip,
      port: stack.topology.httpPort,
      host: HOST,
      path,
      timeoutMs: 3000,
    }).catch(() => undefined);
    if (r?.status !== 200) return { service: '', pod: '' };
    return JSON.parse(r.body) as { service: string; pod: string };
  };
  const servedByEveryPod = (path: string, service: string) =>
    waitFor(
      `${service} at ${path} from every HAProxy pod`,
      async () => {
        const pods = await stack.haproxyPods();
        const seen = await Promise.all(pods.map((p) => through(p, path)));
        return pods.length === 2 && seen.every((s) => s.service === service) ? pods : undefined;
      },
      120_000,
    );
  const agentStatus = (p: PodAddress, password: string) =>
    fetch(`http://${p.ip}:${stack.topology.dataplanePort}/v3/info`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${CREDENTIALS.username}:${password}`).toString('base64')}`,
      },
    }).then((r) => r.status);

  beforeAll(async () => {
    stack = await Stack.start({ install: 'chart', fast: true, readyTimeoutMs: 240_000 });
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('installs the default layout: the HAProxy image the tests run, the agent attached to its master', async () => {
    expect(
      Object.keys(stack.chartValues ?? {}).filter((k) => /dataplane\.mode|image/.test(k)),
    ).toEqual([]);
    const d = await get(`/apis/apps/v1/namespaces/${NS}/deployments/haptic-haproxy`);
    const spec = d.spec.template.spec;
    expect(spec.containers.map((c: any) => [c.name, c.image])).toEqual([
      ['haproxy', 'ghcr.io/haproxy-haptic/haproxy:3.0.11'],
      ['dataplane', 'ghcr.io/haproxy-haptic/haptic:0.1.0'],
    ]);
    expect(spec.initContainers.map((c: any) => c.name)).toEqual(['prepare']);
  });

  it('runs HAProxy and the agent as two distinct processes; the agent drives the HAProxy container’s master', async () => {
    const pods = await stack.haproxyPods();
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      const { haproxy, agent, statuses } = await processes(p);
      for (const s of statuses)
        expect([s.name, s.ready, Object.keys(s.state)]).toEqual([s.name, true, ['running']]);
      expect(haproxy).toBeGreaterThan(0);
      expect(agent).toBeGreaterThan(0);
      expect(haproxy).not.toBe(agent);
      const init = (await pod(p.name)).status.initContainerStatuses;
      expect(init.map((s: any) => [s.name, s.state.terminated?.exitCode])).toEqual([
        ['prepare', 0],
      ]);
      // The haproxy container's process is HAProxy's master, not a child of the agent.
      expect(cmdline(haproxy)[0]).toMatch(/haproxy$/);
      expect(cmdline(haproxy)).toContain('-W');
      expect(parentPid(haproxy)).not.toBe(agent);
      // The agent is attached to that HAProxy's master socket (one file of the shared volume).
      expect(cmdline(agent)).toContain('agent');
      expect(cmdline(agent)).toContain(`--master-socket=${masterSocketOf(haproxy)}`);
      const table = await showProc(p);
      expect(table.master.pid).toBe(haproxy);
      expect(table.workers.length).toBeGreaterThan(0);
      // HAProxy answers on the pod's address: the configuration the agent pushed serves /ready.
      const ready = await fetch(`http://${p.ip}:${stack.topology.statsPort}/ready`);
      expect(ready.status).toBe(200);
    }
  });

  it('a new Ingress reloads HAProxy through the master socket: a new worker serves it', async () => {
    const pods = await stack.haproxyPods();
    const before = await Promise.all(pods.map((p) => showProc(p)));
    await stack.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: APP } },
      ...echoApp(APP, 'blue'),
      ...echoApp(APP, 'green'),
      ingress([{ path: '/', service: 'blue' }]),
    ]);
    await servedByEveryPod('/', 'blue');
    for (const [i, p] of pods.entries()) {
      const after = await showProc(p);
      expect(after.master.pid, p.name).toBe(before[i]!.master.pid);
      expect(after.master.reloads, p.name).toBeGreaterThan(before[i]!.master.reloads);
      expect(after.workers.map((w) => w.pid)).not.toEqual(before[i]!.workers.map((w) => w.pid));
    }
  }, 180_000);

  it('an endpoint change reaches HAProxy through the runtime API, without a reload', async () => {
    const pods = await stack.haproxyPods();
    const before = await Promise.all(pods.map((p) => showProc(p)));
    await stack.apply(echoApp(APP, 'blue', { replicas: 2 }));
    await waitFor(
      'both blue pods answering through every HAProxy pod',
      async () => {
        for (const p of pods) {
          const seen = new Set<string>();
          for (let i = 0; i < 20 && seen.size < 2; i++) seen.add((await through(p)).pod);
          seen.delete('');
          if (seen.size < 2) return undefined;
        }
        return true;
      },
      120_000,
    );
    for (const [i, p] of pods.entries()) {
      const after = await showProc(p);
      expect([after.master.pid, after.master.reloads], p.name).toEqual([
        before[i]!.master.pid,
        before[i]!.master.reloads,
      ]);
    }
  }, 180_000);

  it('the agent is a sidecar: killed, HAProxy serves on with the same master; restarted, it attaches again and deploys', async () => {
    const [p] = await stack.haproxyPods();
    const { haproxy, agent } = await processes(p!);
    process.kill(agent, 'SIGKILL');
    // HAProxy does not depend on the agent's process.
    expect((await through(p!)).service).toBe('blue');
    await waitFor(
      'the dataplane container restarted and ready again',
      async () => {
        const s = (await processes(p!)).statuses.find((c) => c.name === 'dataplane');
        return s.restartCount >= 1 && s.ready === true && pidOf(s) !== agent ? true : undefined;
      },
      120_000,
    );
    expect((await processes(p!)).haproxy).toBe(haproxy);
    expect((await showProc(p!)).master.pid).toBe(haproxy);
    await stack.apply(
      ingress([
        { path: '/', service: 'blue' },
        { path: '/after-restart', service: 'green' },
      ]),
    );
    await servedByEveryPod('/after-restart', 'green');
  }, 180_000);

  it('a credential rotation (helm upgrade with a new password) rolls the HAProxy pods; the controller pushes with the new password, the old one is refused', async () => {
    const before = new Set((await stack.haproxyPods()).map((p) => p.name));
    const out = await stack.helm.ok([
      'upgrade',
      Stack.RELEASE,
      chartDir,
      '-n',
      NS,
      '--reuse-values',
      '--set',
      `credentials.password=${NEW_PASSWORD}`,
    ]);
    expect(out).toContain('STATUS: deployed');
    const pods = await waitFor(
      'two new ready HAProxy pods, the old ones gone',
      async () => {
        const all = await get(
          `/api/v1/namespaces/${NS}/pods?labelSelector=app.kubernetes.io/component%3Dloadbalancer`,
        );
        const ready = await stack.haproxyPods();
        return ready.length === 2 &&
          ready.every((p) => !before.has(p.name)) &&
          all.items.length === 2
          ? ready
          : undefined;
      },
      240_000,
    );
    // The new pods were configured by the controller, with the new password.
    await stack.apply(
      ingress([
        { path: '/', service: 'blue' },
        { path: '/green', service: 'green' },
      ]),
    );
    await servedByEveryPod('/green', 'green');
    for (const p of pods) {
      expect(await agentStatus(p, NEW_PASSWORD), p.name).toBe(200);
      expect(await agentStatus(p, CREDENTIALS.password), p.name).toBe(401);
      expect((await processes(p)).haproxy).toBe((await showProc(p)).master.pid);
    }
  }, 300_000);
});
