import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpEcho, type RunningEcho } from '#testbed/echo';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import { dataplaneCredentialsSecret, freePort, registerAgentPod } from '#testbed/testing';
import { startAgent, type AgentOptions, type RunningAgent } from '../../../apps/agent/src/index.js';
import { haptic, root, type HapticProcess } from '../controller/support.js';

// The e2e start most controller specs share: kube-sim with the CRDs, an echo backend, agents with a
// real HAProxy registered as pods, the Dataplane credentials Secret, and `haptic run` on top.
// What differs between specs (addresses, agent options, the template config) comes as options.

/** What a spec puts into kube-sim (metadata left loose: fixtures build it freely). */
export type Put = (
  o: Omit<KubeObject, 'metadata'> & { metadata: Record<string, unknown> },
) => Promise<unknown>;

/** Options of {@link startBed}. */
export interface BedOptions {
  /** Prefix of the temporary directory (agents' config dirs and the password file live there). */
  readonly prefix: string;
  /** One agent per address, registered as pods haproxy-0, haproxy-1, … */
  readonly agents: readonly string[];
  /** The echo backend's address and the context it reports. */
  readonly echo: { readonly address: string; readonly context?: Partial<EchoContext> };
  /** Namespaces besides `haptic` (default `apps`). */
  readonly namespaces?: readonly string[];
  /** CRD manifests, relative to the repository (default the chart's HAProxyTemplateConfig CRD). */
  readonly manifests?: readonly string[];
  /** Every agent on the first agent's port (the config names one Dataplane port for all pods). */
  readonly samePort?: boolean;
  /** Agent options beyond the bed's own (haproxyBin, log…). */
  readonly agent?: Partial<AgentOptions>;
}

interface EchoContext {
  namespace: string;
  ingress: string;
  service: string;
  pod: string;
}

/** A started bed: stop it with {@link Bed.stop}. */
export interface Bed {
  readonly dir: string;
  readonly sim: KubeSim;
  readonly agents: RunningAgent[];
  readonly echo: RunningEcho;
  readonly put: Put;
  /** Starts agent `i` again on its address, port and directory (after its old one closed). */
  startAgent(i: number, port: number): Promise<RunningAgent>;
  /** Kills `haptic run` children still running, closes agents, echo and kube-sim, removes the dir. */
  stop(controllers?: readonly (HapticProcess | undefined)[]): Promise<void>;
}

/** Starts kube-sim, the echo backend and the agents, and seeds namespaces, credentials and pods. */
export async function startBed(o: BedOptions): Promise<Bed> {
  const dir = mkdtempSync(join(tmpdir(), o.prefix));
  writeFileSync(join(dir, 'dp.pw'), 'pw-1\n');
  const manifests = o.manifests ?? ['helm/haptic/crds/haproxytemplateconfigs.yaml'];
  const sim = await KubeSim.start({ port: 0, manifests: manifests.map((m) => join(root, m)) });
  const launch = (i: number, port: number) =>
    startAgent({
      configDir: join(dir, `haproxy-${i}`),
      port,
      address: o.agents[i]!,
      credentials: { kind: 'password-file', username: 'admin', file: join(dir, 'dp.pw') },
      reloadDelayMs: 20,
      ...o.agent,
    });
  const agents: RunningAgent[] = [];
  let echo: RunningEcho | undefined;
  const close = async () => {
    for (const a of agents) await a.close();
    await echo?.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const put: Put = (x) => sim.apply(x as KubeObject);
  try {
    echo = await startHttpEcho({
      mode: 'http',
      address: o.echo.address,
      httpPort: 0,
      httpsPort: 0,
      context: { namespace: 'apps', ingress: '', service: 'web', pod: 'web-0', ...o.echo.context },
    });
    for (const i of o.agents.keys())
      agents.push(await launch(i, o.samePort && i > 0 ? agents[0]!.port : 0));
    for (const name of ['haptic', ...(o.namespaces ?? ['apps'])])
      await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await sim.apply(dataplaneCredentialsSecret({ username: 'admin', password: 'pw-1' }));
    for (const [i, a] of agents.entries())
      await registerAgentPod(sim, { name: `haproxy-${i}`, address: a.address, port: a.port });
  } catch (e) {
    // a start that fails half way leaves nothing running behind it
    await close();
    throw e;
  }
  return {
    dir,
    sim,
    agents,
    echo,
    put,
    startAgent: launch,
    async stop(controllers = []) {
      for (const c of controllers) await stopController(c);
      await close();
    },
  };
}

/** Kills a `haptic run` child that still runs and waits for its exit. */
export async function stopController(c: HapticProcess | undefined): Promise<void> {
  if (!c || c.child.exitCode !== null || c.child.signalCode !== null) return;
  c.child.kill('SIGKILL');
  await c.exited;
}

/** Options of {@link runController}. */
export interface RunOptions {
  readonly kubeconfig: string;
  readonly identity: string;
  /** Default `warn`. */
  readonly logLevel?: string;
  /** Flags after the common ones (e.g. the webhook's). */
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** `haptic run` against the bed's config haptic/haptic, its ports chosen freely on 127.0.0.1. */
export function runController(o: RunOptions): HapticProcess {
  return haptic(
    [
      'run',
      ...['--kubeconfig', o.kubeconfig, '-n', 'haptic', '-c', 'haptic'],
      ...['--address', '127.0.0.1', '--health-port', '0', '--metrics-port', '0'],
      ...(o.args ?? []),
      ...['--log-level', o.logLevel ?? 'warn', '--identity', o.identity],
    ],
    o.env,
  );
}

/** The HAProxyTemplateConfig haptic/haptic: `spec` with the bed's credentials, pods and Dataplane. */
export function templateConfig(
  dataplanePort: number,
  spec: Record<string, unknown>,
  controller: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyTemplateConfig',
    metadata: { namespace: 'haptic', name: 'haptic' },
    spec: {
      ...spec,
      credentialsSecretRef: { name: 'dp-creds' },
      podSelector: { matchLabels: { app: 'haproxy' } },
      controller: { ...controller, reconcile: { debounce: '20ms', maxDelay: '200ms' } },
      dataplane: {
        ...(spec['dataplane'] as object | undefined),
        port: dataplanePort,
        minDeploymentInterval: '50ms',
        mapsDir: 'maps',
        sslCertsDir: 'ssl',
        generalStorageDir: 'general',
      },
    },
  };
}

/** A Service `name` in `namespace` (port 80) and its EndpointSlice of one ready address. */
export function serviceWithEndpoint(
  namespace: string,
  name: string,
  address: string,
  port: number,
): KubeObject[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace, name },
      spec: { ports: [{ name: 'http', port: 80 }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace, name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [address], conditions: { ready: true } }],
      ports: [{ name: 'http', port }],
    },
  ];
}

/** A port free on every address (the pair's agents share one HAProxy http port). */
export async function portFreeOnAll(addresses: readonly string[]): Promise<number> {
  for (;;) {
    const port = await freePort(addresses[0]);
    const free = await Promise.all(addresses.slice(1).map((a) => freeOn(a, port)));
    if (free.every(Boolean)) return port;
  }
}

/** Whether `port` can be bound on `address` right now. */
export function freeOn(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, address, () => s.close(() => resolve(true)));
  });
}
