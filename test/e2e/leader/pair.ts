import { join } from 'node:path';
import type { RunningEcho } from '#testbed/echo';
import type { KubeObject, KubeSim } from '#testbed/kube-sim';
import { cliCommand, ingressObject, parseMasterShowProc } from '#testbed/testing';
import type { RunningAgent, RequestLogEntry } from '../../../apps/agent/src/index.js';
import { waitFor } from '#testbed/stack';
import { getWithHost, type HapticProcess } from '../controller/support.js';
import {
  portFreeOnAll,
  runController,
  startBed,
  templateConfig,
  type Bed,
} from '../support/bed.js';

/** Short lease timings for the tests (production defaults are 15s/10s/2s). */
export const LEASE = { leaseDuration: 4, renewDeadline: 3, retryPeriod: 0.5 } as const;

const HAPROXY_CFG = `global
  log stdout format raw local0 err
defaults
  mode http
  option idle-close-on-response
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend http
  bind "\${POD_IP}:{{ extra.http_port }}"
  use_backend %[req.hdr(host),field(1,:),lower,map({{ "hosts.map" | map_path }},be_default)]
backend be_default
  http-request return status 404 content-type text/plain string "no route"
backend be_web
  server echo {{ extra.echo }}
`;
const HOSTS_MAP = `{%- for ing in resources.ingresses %}{% for rule in ing.spec.rules %}
{{ rule.host }} be_web
{%- endfor %}{% endfor %}
`;

/** One Lease write as the test's watch saw it. */
export interface LeaseEvent {
  readonly seenAt: number;
  readonly resourceVersion: string;
  readonly holder: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: string;
  readonly renewTime: string;
  readonly transitions: number;
}

/** A `haptic run` replica with its own kube-sim token (so a fault can target it). */
export interface Replica {
  readonly name: string;
  readonly token: string;
  readonly proc: HapticProcess;
  healthPort(): Promise<number>;
  leaderStatus(): Promise<{ isLeader: boolean; holder?: string; identity: string }>;
}

/** kube-sim, two agents with real HAProxy, an echo backend, and `haptic run` replicas. */
export class LeaderBed {
  readonly leases: LeaseEvent[] = [];
  readonly replicas: Replica[] = [];
  private watchAbort = new AbortController();
  private counter = 0;

  private constructor(
    private readonly bed: Bed,
    readonly httpPort: number,
  ) {}

  get dir(): string {
    return this.bed.dir;
  }
  get sim(): KubeSim {
    return this.bed.sim;
  }
  get agents(): RunningAgent[] {
    return this.bed.agents;
  }
  get echo(): RunningEcho {
    return this.bed.echo;
  }

  static async start(haproxyBin: string): Promise<LeaderBed> {
    const bed = await startBed({
      prefix: 'haptic-leader-',
      manifests: ['test/fixtures/crds/haproxytemplateconfigs.yaml'],
      echo: { address: '127.0.0.83' },
      agents: ['127.0.0.81', '127.0.0.82'],
      samePort: true,
      agent: { haproxyBin },
    });
    const leader = new LeaderBed(bed, await portFreeOnAll(['127.0.0.81', '127.0.0.82']));
    await bed.put(leader.config());
    leader.watchLeases();
    return leader;
  }

  /** The HAProxyTemplateConfig: short leases, every Ingress host routed to the echo backend. */
  private config(): KubeObject {
    const leaderElection = {
      leaseDuration: `${LEASE.leaseDuration}s`,
      renewDeadline: `${LEASE.renewDeadline}s`,
      retryPeriod: `${LEASE.retryPeriod * 1000}ms`,
    };
    const spec = {
      templatingSettings: {
        extraContext: {
          http_port: this.httpPort,
          echo: `127.0.0.83:${this.echo.listeners[0]!.port}`,
        },
      },
      watchedResources: {
        ingresses: {
          apiVersion: 'networking.k8s.io/v1',
          resources: 'ingresses',
          indexBy: ['metadata.namespace', 'metadata.name'],
        },
      },
      maps: { 'hosts.map': { template: HOSTS_MAP } },
      haproxyConfig: { template: HAPROXY_CFG },
    };
    return templateConfig(this.agents[0]!.port, spec, { leaderElection });
  }

  /** Records every write of the Lease, as a watch from the test sees it. */
  private watchLeases(): void {
    const url = `${this.sim.url}/apis/coordination.k8s.io/v1/namespaces/haptic/leases?watch=true`;
    const run = async () => {
      const res = await fetch(url, { signal: this.watchAbort.signal });
      const decoder = new TextDecoder();
      let buf = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line) as {
            type: string;
            object: KubeObject & {
              spec?: {
                holderIdentity?: string;
                leaseDurationSeconds?: number;
                acquireTime?: string;
                renewTime?: string;
                leaseTransitions?: number;
              };
            };
          };
          if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
          const spec = ev.object.spec ?? {};
          this.leases.push({
            seenAt: Date.now(),
            resourceVersion: String(ev.object.metadata.resourceVersion),
            holder: spec.holderIdentity ?? '',
            leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
            acquireTime: spec.acquireTime ?? '',
            renewTime: spec.renewTime ?? '',
            transitions: spec.leaseTransitions ?? 0,
          });
        }
      }
    };
    run().catch(() => undefined);
  }

  /** Kills agent `i`'s HAProxy (SIGKILL to its process group); the agent's watchdog restarts it. */
  async killHaproxy(i: number): Promise<void> {
    const pid = this.agents[i]!.context.haproxy.pid;
    if (pid <= 0) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      process.kill(pid, 'SIGKILL');
    }
    await waitFor(`HAProxy ${pid} to exit`, () => (isAlive(pid) ? undefined : true));
  }

  /**
   * Restarts agent `i` (an agent crash): the old one stops without its HAProxy, the new one,
   * on the same address, port and directory, adopts the running HAProxy.
   */
  async restartAgent(i: number): Promise<RunningAgent> {
    const old = this.agents[i]!;
    await old.close({ keepHaproxy: true });
    const agent = await this.bed.startAgent(i, old.port);
    this.agents[i] = agent;
    return agent;
  }

  /** Starts a replica under a new name with its own token (`env` for its process). */
  async startReplica(env: NodeJS.ProcessEnv = {}): Promise<Replica> {
    const name = `ctl-${++this.counter}`;
    const token = `token-${name}`;
    const client = await this.sim.addClient(token);
    const proc = runController({ kubeconfig: client.kubeconfigPath, identity: name, env });
    const healthPort = () =>
      waitFor(
        `${name} to print its ports`,
        () => {
          const m = /"healthPort":(\d+)/.exec(proc.output());
          if (m) return Number(m[1]);
          const { exitCode, signalCode } = proc.child;
          // a replica that died or hangs at start says why, instead of a bare time-out
          throw new Error(
            `${exitCode !== null || signalCode !== null ? `exited (${exitCode ?? signalCode})` : 'no ports yet'}; ` +
              `its output ends: ${proc.output().slice(-1500)}`,
          );
        },
        60_000,
      );
    const replica: Replica = {
      name,
      token,
      proc,
      healthPort,
      leaderStatus: async () =>
        (await (await fetch(`http://127.0.0.1:${await healthPort()}/debug/leader`)).json()) as {
          isLeader: boolean;
          holder?: string;
          identity: string;
        },
    };
    this.replicas.push(replica);
    return replica;
  }

  /** Waits until the Lease names `name` as holder. */
  async holderIs(name: string, timeoutMs = 60_000): Promise<LeaseEvent> {
    return waitFor(
      `${name} to hold the Lease`,
      () =>
        this.leases.find(
          (l, i) => l.holder === name && this.leases.slice(i).every((x) => x.holder === name),
        ),
      timeoutMs,
    );
  }

  /** Writes (anything but GET) to each agent by a client, oldest first, with the agent index. */
  writes(client?: string): (RequestLogEntry & { agent: number; at: number })[] {
    return this.agents
      .flatMap((a, agent) =>
        a.requests.list().map((e) => ({ ...e, agent, at: Date.parse(e.time) })),
      )
      .filter((e) => e.method !== 'GET' && (client === undefined || e.client === client))
      .sort((x, y) => x.at - y.at);
  }

  /** Requests of any method by a client. */
  requests(client: string): (RequestLogEntry & { agent: number })[] {
    return this.agents.flatMap((a, agent) =>
      a.requests
        .list()
        .filter((e) => e.client === client)
        .map((e) => ({ ...e, agent })),
    );
  }

  /** HAProxy reloads so far, per agent, from the master CLI's `show proc`. */
  async reloads(): Promise<number[]> {
    return Promise.all(
      this.agents.map(async (a) => {
        const table = parseMasterShowProc(
          await cliCommand(join(a.configDir, 'run', 'master.sock'), 'show proc'),
        );
        return table.master.reloads;
      }),
    );
  }

  /** Adds an Ingress routing `host`. */
  async addHost(host: string): Promise<void> {
    await this.sim.apply(ingressObject({ name: host.split('.')[0]!, host }));
  }

  /** Waits until both HAProxy pods route `host`. */
  async served(host: string, timeoutMs = 60_000): Promise<void> {
    for (const a of this.agents)
      await waitFor(
        `${a.address} to route ${host}`,
        async () => {
          const r = await getWithHost(a.address, this.httpPort, host);
          return r.status === 200 ? true : undefined;
        },
        timeoutMs,
      );
  }

  async stop(): Promise<void> {
    this.watchAbort.abort();
    await this.bed.stop(this.replicas.map((r) => r.proc));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds since the epoch of a Kubernetes MicroTime text. */
export const ms = (microTime: string): number => Date.parse(microTime);
