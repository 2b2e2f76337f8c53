import { waitFor } from '#testbed/stack';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeForMajors } from '#testbed/testing';
import { LEASE, LeaderBed, ms, type Replica } from './pair.js';

/** `npm test` runs 3 cycles; `npm run test:leader-cycles` runs 20 (LEADER_CYCLES). */
const CYCLES = Number(process.env['LEADER_CYCLES'] ?? 3);
const LD = LEASE.leaseDuration * 1000;

/** The value of one sample of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (want.every((w) => line.includes(w))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

/**
 * Repeated kill -9 failovers with changes in between. Odd cycles change the routes during the
 * outage (the new leader deploys it through the runtime API: no reload); even cycles change them
 * while the leader runs and then kill it (the new leader reads the pods back and writes nothing:
 * no reload). Every change must reach HAProxy; reloads are counted by HAProxy's master.
 */
describeForMajors(['3.0'], `leader failover: ${CYCLES} kill -9 cycles`, (haproxy) => {
  let bed: LeaderBed;
  let leader: Replica;
  let standby: Replica;
  const hosts: string[] = [];
  const takeovers: number[] = [];

  async function newStandby(): Promise<Replica> {
    const r = await bed.startReplica();
    await waitFor(
      `${r.name} to run as standby`,
      async () => {
        const s = await r.leaderStatus();
        return !s.isLeader && s.holder === leader.name ? true : undefined;
      },
      60_000,
    );
    return r;
  }

  /** Finished deployments of `r` per pod with one of `results`, from its /metrics. */
  async function deployments(r: Replica, results: string[]): Promise<number[]> {
    const port = Number(/"metricsPort":(\d+)/.exec(r.proc.output())![1]);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return ['haproxy-0', 'haproxy-1'].map((pod) =>
      results.reduce(
        (n, result) =>
          n + (sample(text, 'haptic_deployments_total', { pod: `haptic/${pod}`, result }) ?? 0),
        0,
      ),
    );
  }

  /** Waits until `r` has finished more deployments (of `results`) to every pod than `than`. */
  async function deployedEverywhere(
    r: Replica,
    results = ['applied', 'unchanged'],
    than = [0, 0],
  ): Promise<void> {
    await waitFor(
      `${r.name} to have finished a deployment to every pod`,
      async () => {
        const now = await deployments(r, results);
        return now.every((n, i) => n > than[i]!) ? true : undefined;
      },
      60_000,
    );
  }

  beforeAll(async () => {
    bed = await LeaderBed.start(haproxy.bin);
    leader = await bed.startReplica();
    await bed.holderIs(leader.name);
    hosts.push('c0.example.com');
    await bed.addHost(hosts[0]!);
    await bed.served(hosts[0]!);
    standby = await newStandby();
  }, 180_000);

  afterAll(async () => {
    await bed?.stop();
  });

  it(
    'every change reaches HAProxy, none is lost, and no failover by itself causes a reload',
    async () => {
      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        const duringOutage = cycle % 2 === 1;
        const host = `c${cycle}.example.com`;
        hosts.push(host);
        if (!duringOutage) {
          const done = await deployments(leader, ['applied', 'unchanged']);
          await bed.addHost(host);
          await bed.served(host);
          // a deployment finished after the change (its reload included) on every pod
          await deployedEverywhere(leader, ['applied', 'unchanged'], done);
        }
        const before = await bed.reloads();
        const killedAt = Date.now();
        leader.proc.child.kill('SIGKILL');
        await leader.proc.exited;
        if (duringOutage) await bed.addHost(host);
        const taken = await bed.holderIs(standby.name);
        const lastOld = bed.leases.filter((l) => l.holder === leader.name).at(-1)!;
        expect(ms(taken.acquireTime) - ms(lastOld.renewTime)).toBeGreaterThanOrEqual(LD);
        await bed.served(host);
        await deployedEverywhere(standby);
        const after = await bed.reloads();
        const newWrites = bed.writes(standby.name);
        if (duringOutage) {
          // the change made during the outage (a new host: map entries) is written by the new
          // leader through the runtime API: no reload for it, none for the failover
          expect(newWrites.length).toBeGreaterThan(0);
          expect(after.map((n, i) => n - before[i]!)).toEqual([0, 0]);
        } else {
          // nothing changed: the new leader read the pods back and wrote nothing
          const recent = bed
            .writes()
            .filter((w) => w.at > killedAt - 3000)
            .map(
              (w) => `${w.at - killedAt} ${w.client} ${w.agent} ${w.method} ${w.path} ${w.status}`,
            );
          expect(after, `reloads; writes around the kill: ${recent.join(' | ')}`).toEqual(before);
          expect(newWrites).toEqual([]);
        }
        if (newWrites[0])
          expect(newWrites[0].at).toBeGreaterThanOrEqual(Math.floor(ms(taken.acquireTime)));
        takeovers.push(ms(taken.acquireTime) - killedAt);
        leader = standby;
        standby = await newStandby();
      }
      for (const h of hosts) await bed.served(h);
      console.log(
        `${CYCLES} kill -9 cycles: Lease taken over ${takeovers.join(', ')} ms after each kill ` +
          `(min ${Math.min(...takeovers)}, max ${Math.max(...takeovers)}; leaseDuration ${LD} ms); ` +
          `reloads per HAProxy: ${(await bed.reloads()).join(', ')}`,
      );
    },
    CYCLES * 90_000,
  );
});
