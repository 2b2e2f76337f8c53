import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { startHttpEcho, type RunningEcho } from '#testbed/echo';
import { KubeSim, generateCertificate, type KubeObject } from '#testbed/kube-sim';
import { cliCommand, freePort, parseMasterShowProc } from '#testbed/testing';
import { heapNodeFlags } from '../../../../../apps/controller/src/cli/heap-limit.js';
import type { ChartSettings } from './chart.js';
import type { TlsPair, WorldOptions } from './manifests.js';
import { metricValue, processMemory } from './memory-probe.js';
import {
  NAMESPACES,
  benchIngress,
  benchService,
  benchSlice,
  benchTlsSecret,
  installWorld,
} from './bench-world.js';

export { CHURN, NAMESPACES, churnAddresses, pemFingerprint } from './bench-world.js';
import { poll, spawnHaptic, type HapticChild } from './processes.js';

/** How the bench cluster is brought up. */
export interface ClusterOptions {
  /** The checkout (bin/haptic.js, the Ingress library, the CRD). */
  readonly root: string;
  /** Ingresses (each with its Service and EndpointSlice, pointing at the echo pods). */
  readonly ingresses: number;
  /** TLS Secrets, each referenced by one Ingress (at most one per Ingress). */
  readonly secrets: number;
  readonly haproxyBin: string;
  readonly chart: ChartSettings;
  /** The controller's V8 heap limit (MiB), as the chart's memory limit gives it. */
  readonly heapLimitMiB: number;
  /** How long the first deployment may take. */
  readonly readyTimeoutMs: number;
  /** Echo pods every EndpointSlice points at (default 3). */
  readonly echoes?: number;
  readonly log?: (line: string) => void;
}

/**
 * The agent's reload delay: none. The agent (the chart's `mode: agent`) reloads synchronously
 * through the master socket; the chart's reloadDelaySeconds is the real Dataplane API sidecar's,
 * which the floor scenario reports as what that mode adds to every reload.
 */
export const AGENT_RELOAD_DELAY_MS = 0;

/** One change as the controller's /debug/changes shows it (the fields the bench reads). */
export interface ChangeStagesSeen {
  readonly correlationId: string;
  readonly receivedAt: string;
  readonly outcome: string;
  readonly stagesMs: Readonly<Record<string, number>>;
  readonly pods: readonly {
    readonly durationMs: number;
    readonly stages: Readonly<Record<string, number>>;
  }[];
}

/**
 * What `haptic bench` runs against, as the chart installs it: kube-sim (in process) holding the
 * generated cluster and the HAProxyTemplateConfig (the Ingress library with the chart's timings),
 * one HAProxy pod — `haptic agent` (the chart's agent mode: no reload delay) driving a real
 * HAProxy — a few echo backends, and `haptic run` under the chart's heap limit. The HAProxy pod
 * is registered in kube-sim by hand (no node-sim: the agent is started here with its options).
 */
export class BenchCluster {
  private readonly keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

  private constructor(
    readonly opts: ClusterOptions,
    readonly dir: string,
    readonly sim: KubeSim,
    readonly echoes: readonly RunningEcho[],
    readonly agent: HapticChild,
    readonly haproxyIp: string,
    readonly ports: { http: number; https: number; agent: number; metrics: number; health: number },
    readonly world: WorldOptions,
    readonly haproxyVersion: string,
    private controllerChild: HapticChild | undefined,
    readonly echoAddresses: readonly string[],
    readonly echoPort: number,
  ) {}

  get configDir(): string {
    return join(this.dir, 'haproxy');
  }

  get controller(): HapticChild {
    if (!this.controllerChild) throw new Error('the controller is not running');
    return this.controllerChild;
  }

  /** Everything up to (not including) the controller; `startController` starts it. */
  static async start(o: ClusterOptions): Promise<BenchCluster> {
    const log = o.log ?? (() => undefined);
    const dir = await mkdtemp(join(tmpdir(), 'haptic-bench-'));
    const block = `127.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 256)}`;
    const haproxyIp = `${block}.1`;
    const echoAddresses = Array.from({ length: o.echoes ?? 3 }, (_, k) => `${block}.${10 + k}`);
    const echoPort = await freePort(echoAddresses[0]);
    const started: { stop: () => Promise<void> }[] = [];
    try {
      const echoes: RunningEcho[] = [];
      for (const [k, address] of echoAddresses.entries()) {
        const echo = await startHttpEcho({
          mode: 'http',
          address,
          httpPort: echoPort,
          httpsPort: 0,
          context: { namespace: 'bench', ingress: '', service: 'echo', pod: `echo-${k}` },
        });
        echoes.push(echo);
        started.push({ stop: () => echo.close() });
      }
      const sim = await KubeSim.start({
        port: 0,
        kubeconfigPath: join(dir, 'kubeconfig'),
        manifests: [join(o.root, 'helm/haptic/crds/haproxytemplateconfigs.yaml')],
      });
      started.push({ stop: () => sim.stop() });
      const ports = {
        http: await freePort(haproxyIp),
        https: await freePort(haproxyIp),
        agent: await freePort(haproxyIp),
        metrics: await freePort('127.0.0.1'),
        health: await freePort('127.0.0.1'),
      };
      await writeFile(join(dir, 'dp.pw'), 'bench-pw\n');
      // prettier-ignore
      const agent = spawnHaptic(o.root, [
        'agent', '--address', haproxyIp, '--port', String(ports.agent),
        '--config-dir', join(dir, 'haproxy'), '--username', 'admin',
        '--password-file', join(dir, 'dp.pw'), '--reload-delay', String(AGENT_RELOAD_DELAY_MS),
        '--haproxy-bin', o.haproxyBin,
      ]);
      started.push({ stop: () => agent.stop() });
      const ready = await agent.line(/listening on \S+ \(HAProxy ([^\s,]+)/, 60_000, 'the agent');
      log(
        `agent on ${haproxyIp}:${ports.agent}, HAProxy ${ready[1]}, reload delay ${AGENT_RELOAD_DELAY_MS} ms`,
      );
      const tls = await generateCertificate({ commonName: 'bench', dnsNames: ['*.example.com'] });
      const world: WorldOptions = {
        ingresses: o.ingresses,
        namespaces: NAMESPACES,
        paths: 1,
        ...(o.secrets > 0
          ? { tls, tlsEvery: Math.max(1, Math.floor(o.ingresses / o.secrets)) }
          : {}),
      };
      const cluster = new BenchCluster(
        o,
        dir,
        sim,
        echoes,
        agent,
        haproxyIp,
        ports,
        world,
        ready[1]!,
        undefined,
        echoAddresses,
        echoPort,
      );
      await cluster.install(tls);
      log(
        `kube-sim holds ${o.ingresses} Ingresses, Services and EndpointSlices, ${o.secrets} TLS Secrets`,
      );
      return cluster;
    } catch (e) {
      for (const s of started.reverse()) await s.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** An EndpointSlice of Service `name` in `namespace` with these addresses at the echo port. */
  slice(namespace: string, name: string, addresses: readonly string[]): KubeObject {
    return benchSlice(this.echoPort, namespace, name, addresses);
  }

  /** A Service without a selector (its EndpointSlices are written by the bench). */
  service(namespace: string, name: string): KubeObject {
    return benchService(this.echoPort, namespace, name);
  }

  /** An Ingress of one host and one Prefix path `/api` to `service`'s port 80. */
  ingress(namespace: string, name: string, host: string, service: string): KubeObject {
    return benchIngress(namespace, name, host, service);
  }

  /** A TLS Secret. */
  tlsSecret(namespace: string, name: string, pair: TlsPair): KubeObject {
    return benchTlsSecret(namespace, name, pair);
  }

  private install(tls: TlsPair): Promise<void> {
    const { opts, sim, world, echoPort, echoAddresses, haproxyIp, ports } = this;
    const { root, chart } = opts;
    return installWorld(
      { sim, root, chart, world, echoPort, echoAddresses, haproxyIp, ports },
      tls,
    );
  }

  /** Starts `haptic run` (the chart's heap limit); returns when its process is up (not deployed). */
  startController(): HapticChild {
    const { opts, ports } = this;
    // prettier-ignore
    this.controllerChild = spawnHaptic(opts.root, [
      'run', '--kubeconfig', this.sim.kubeconfigPath, '-n', 'haptic', '-c', 'haptic',
      '--address', '127.0.0.1', '--health-port', String(ports.health),
      '--metrics-port', String(ports.metrics), '--log-level', 'warn', '--identity', 'bench',
      '--haproxy-bin', opts.haproxyBin,
    ], heapNodeFlags(opts.heapLimitMiB));
    return this.controllerChild;
  }

  apply(objects: KubeObject | readonly KubeObject[]): Promise<KubeObject[]> {
    return this.sim.apply(objects);
  }

  /** One GET through HAProxy with a Host header: the status (0 on a connection error). */
  get(host: string, path = '/api', keepAlive = false): Promise<number> {
    return new Promise((resolve) => {
      const req = request(
        {
          host: this.haproxyIp,
          port: this.ports.http,
          path,
          headers: { host },
          agent: keepAlive ? this.keepAlive : false,
        },
        (res) => {
          res.resume().on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0)).setTimeout(5000, () => req.destroy(new Error('timeout')));
      req.end();
    });
  }

  /** Polls until `host` answers 200 through HAProxy. */
  served(host: string, timeoutMs = 120_000): Promise<true> {
    return poll(
      `${host} to be served`,
      async () => ((await this.get(host)) === 200 ? true : undefined),
      timeoutMs,
    );
  }

  /** HAProxy's reload count from its master (`show proc`); retried while the master re-executes. */
  reloads(): Promise<number> {
    return poll(
      'HAProxy master to answer show proc',
      async () =>
        parseMasterShowProc(
          await cliCommand(join(this.configDir, 'run', 'master.sock'), 'show proc'),
        ).master.reloads,
      30_000,
      50,
    );
  }

  /** Pids of HAProxy's master, workers and old workers. */
  async haproxyPids(): Promise<number[]> {
    const t = await poll(
      'HAProxy master to answer show proc',
      async () =>
        parseMasterShowProc(
          await cliCommand(join(this.configDir, 'run', 'master.sock'), 'show proc'),
        ),
      30_000,
      50,
    );
    return [t.master.pid, ...t.workers.map((w) => w.pid), ...t.oldWorkers.map((w) => w.pid)];
  }

  /** Reloads HAProxy through its master socket (synchronous on HAProxy 3.x); the wall-clock ms. */
  async reloadNow(): Promise<number> {
    // the master's socket is closed for a moment while a reload the agent asked for re-executes
    // it: retried, and only the attempt that reached the master is timed
    let ms = 0;
    const reply = await poll(
      'HAProxy master to take a reload',
      async () => {
        const t0 = performance.now();
        const r = await cliCommand(join(this.configDir, 'run', 'master.sock'), 'reload', {
          timeoutMs: 120_000,
        });
        ms = performance.now() - t0;
        return r;
      },
      30_000,
      50,
    );
    if (/Success=0/.test(reply)) throw new Error(`reload failed: ${reply.slice(0, 500)}`);
    return ms;
  }

  /** `show servers state` of the runtime API: of one backend, or of all. */
  serversState(backend?: string): Promise<string> {
    const socket = join(this.configDir, 'run', 'admin.sock');
    return cliCommand(socket, backend ? `show servers state ${backend}` : 'show servers state');
  }

  /** The backend serving the churned Service, found once in the whole servers state. */
  private churnBackend: string | undefined;

  /**
   * The servers state of the churned Service's backend: the probe asks for that backend only, as
   * a dump of every backend each 10 ms (700 KB at 1,000 Ingresses) loads the HAProxy and the
   * agent whose change it times.
   */
  private async churnState(addresses: readonly string[]): Promise<string> {
    if (this.churnBackend) return this.serversState(this.churnBackend);
    const all = await this.serversState();
    // `be_id be_name srv_id srv_name srv_addr …`: the backend holding one of its addresses
    const line = all.split('\n').find((l) => addresses.some((a) => l.includes(` ${a} `)));
    this.churnBackend = line?.split(' ')[1];
    return all;
  }

  /** Until the churned Service's servers in HAProxy hold exactly `want` of the addresses named so far. */
  async endpointsServed(
    want: readonly string[],
    gone: readonly string[],
    timeoutMs = 120_000,
  ): Promise<true> {
    return poll(
      `endpoints ${want.join(',')} in HAProxy`,
      async () => {
        const state = await this.churnState([...want, ...gone]);
        const has = (a: string) => state.includes(` ${a} `);
        return want.every(has) && !gone.some(has) ? true : undefined;
      },
      timeoutMs,
    );
  }

  /** SHA-256 fingerprint of the certificate HAProxy presents for `servername`. */
  fingerprint(servername: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const s = tlsConnect(
        { host: this.haproxyIp, port: this.ports.https, servername, rejectUnauthorized: false },
        () => {
          const fp = s.getPeerCertificate().fingerprint256;
          s.destroy();
          resolve(fp);
        },
      );
      s.on('error', reject).setTimeout(5000, () => s.destroy(new Error('timeout')));
    });
  }

  /** The controller's /debug/changes: each change by correlation id with its ms per stage. */
  async changes(): Promise<readonly ChangeStagesSeen[]> {
    const r = await fetch(`http://127.0.0.1:${this.ports.health}/debug/changes`);
    const body = (await r.json()) as { changes?: ChangeStagesSeen[]; pending?: ChangeStagesSeen[] };
    return [...(body.changes ?? []), ...(body.pending ?? [])];
  }

  /** The controller's /metrics text. */
  async metrics(): Promise<string> {
    return (await fetch(`http://127.0.0.1:${this.ports.metrics}/metrics`)).text();
  }

  /** The sum of a counter over all its label sets (0 when absent). */
  async counterSum(name: string): Promise<number> {
    const text = await this.metrics();
    let sum = 0;
    for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
      sum += Number(m[1]);
    return sum;
  }

  /** Controller VmRSS, VmHWM and V8 heap used (bytes). */
  async controllerMemory(): Promise<{ rss: number; hwm: number; heapUsed: number }> {
    const mem = await processMemory(this.controller.pid);
    const heapUsed = metricValue(await this.metrics(), 'nodejs_heap_size_used_bytes');
    if (heapUsed === undefined)
      throw new Error('controller metrics lack nodejs_heap_size_used_bytes');
    return { ...mem, heapUsed };
  }

  /** Stops the controller, the agent (and its HAProxy), the echoes and kube-sim; removes the folder. */
  async stop(): Promise<void> {
    await this.controllerChild?.stop();
    await this.agent.stop();
    for (const e of this.echoes) await e.close().catch(() => undefined);
    await this.sim.stop();
    this.keepAlive.destroy();
    await rm(this.dir, { recursive: true, force: true });
  }
}
