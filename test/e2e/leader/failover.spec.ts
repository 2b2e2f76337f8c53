import { waitFor } from '#testbed/stack';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeForMajors } from '#testbed/testing';
import { LEASE, LeaderBed, ms, type Replica } from './pair.js';

const LD = LEASE.leaseDuration * 1000;
const RD = LEASE.renewDeadline * 1000;

/**
 * Two `haptic run` replicas against kube-sim and two agents with real HAProxy: failover by
 * kill -9, by SIGTERM (Lease released) and by a cut from the API, judged by the order of the
 * Lease's writes (watched) and the agents' request logs — never two writers in one window.
 * Measured take-over times are printed, not asserted.
 */
describeForMajors(['3.0'], 'leader election end to end: two haptic run replicas', (haproxy) => {
  let bed: LeaderBed;
  let leader: Replica;
  let standby: Replica;
  let sampling = true;
  let samples = 0;
  const overlaps: string[] = [];

  /** Polls every live replica's /debug/leader: at no sample may two claim to lead. */
  async function sampleLeaders(): Promise<void> {
    while (sampling) {
      const live = bed.replicas.filter(
        (r) => r.proc.child.exitCode === null && r.proc.child.signalCode === null,
      );
      const claims: string[] = [];
      for (const r of live) {
        const s = await r.leaderStatus().catch(() => undefined);
        if (s?.isLeader) claims.push(r.name);
      }
      samples++;
      if (claims.length > 1) overlaps.push(claims.join('+'));
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    bed = await LeaderBed.start(haproxy.bin);
    leader = await bed.startReplica();
    await bed.holderIs(leader.name);
    await bed.addHost('h0.example.com');
    await bed.served('h0.example.com');
    standby = await bed.startReplica();
    await waitFor(
      `${standby.name} to run as standby`,
      async () => {
        const s = await standby.leaderStatus();
        return !s.isLeader && s.holder === leader.name ? true : undefined;
      },
      60_000,
    );
    void sampleLeaders();
  }, 180_000);

  afterAll(async () => {
    sampling = false;
    await bed?.stop();
  });

  it('one replica leads and deploys; the standby writes nothing to any agent', () => {
    expect(bed.writes(leader.name).length).toBeGreaterThan(0);
    expect(bed.writes(standby.name)).toEqual([]);
    expect(bed.writes().every((w) => w.client === leader.name)).toBe(true);
  });

  it('after kill -9 of the leader, the standby deploys a change made during the outage, writing only after the old lease expired', async () => {
    const killedAt = Date.now();
    leader.proc.child.kill('SIGKILL');
    await leader.proc.exited;
    await bed.addHost('h1.example.com'); // during the outage
    const taken = await bed.holderIs(standby.name);
    await bed.served('h1.example.com');
    const lastOld = bed.leases.filter((l) => l.holder === leader.name).at(-1)!;
    // the take-over record follows the old leader's last renewal directly, a whole lease later
    expect(bed.leases.indexOf(taken)).toBe(bed.leases.indexOf(lastOld) + 1);
    expect(taken.transitions).toBe(lastOld.transitions + 1);
    expect(ms(taken.acquireTime) - ms(lastOld.renewTime)).toBeGreaterThanOrEqual(LD);
    const firstNew = bed.writes(standby.name)[0]!;
    expect(firstNew.at).toBeGreaterThanOrEqual(Math.floor(ms(taken.acquireTime)));
    expect(bed.writes(leader.name).at(-1)!.at).toBeLessThan(firstNew.at);
    console.log(
      `kill -9 take-over: Lease acquired ${ms(taken.acquireTime) - killedAt} ms after the kill ` +
        `(${ms(taken.acquireTime) - ms(lastOld.renewTime)} ms after the last renewal); first write ` +
        `${firstNew.at - killedAt} ms after the kill`,
    );
    [leader, standby] = [standby, await bed.startReplica()];
    await waitFor(
      `${standby.name} to run as standby`,
      async () => {
        const s = await standby.leaderStatus();
        return !s.isLeader && s.holder === leader.name ? true : undefined;
      },
      60_000,
    );
  }, 240_000);

  it('after SIGTERM the leader releases the Lease and the standby takes over', async () => {
    const termAt = Date.now();
    leader.proc.child.kill('SIGTERM');
    expect(await leader.proc.exited).toEqual({ code: 0, signal: null });
    const taken = await bed.holderIs(standby.name);
    const released = bed.leases[bed.leases.indexOf(taken) - 1]!;
    expect(released).toMatchObject({ holder: '', leaseDurationSeconds: 1 });
    const lastOld = bed.leases[bed.leases.indexOf(released) - 1]!;
    expect(lastOld.holder).toBe(leader.name);
    await bed.addHost('h2.example.com');
    await bed.served('h2.example.com');
    const firstNew = bed.writes(standby.name)[0]!;
    expect(firstNew.at).toBeGreaterThanOrEqual(Math.floor(ms(taken.acquireTime)));
    const oldWrites = bed.writes(leader.name);
    expect(oldWrites.every((w) => w.at <= ms(released.renewTime))).toBe(true);
    console.log(
      `SIGTERM take-over: released ${ms(released.renewTime) - termAt} ms after SIGTERM; acquired ` +
        `${ms(taken.acquireTime) - ms(released.renewTime)} ms after the release (retryPeriod ${LEASE.retryPeriod * 1000} ms)`,
    );
    [leader, standby] = [standby, await bed.startReplica()];
    await waitFor(
      `${standby.name} to run as standby`,
      async () => {
        const s = await standby.leaderStatus();
        return !s.isLeader && s.holder === leader.name ? true : undefined;
      },
      60_000,
    );
  }, 240_000);

  it('a leader cut off from the API stops writing before its renew deadline; the standby writes only after the lease expired', async () => {
    // keep the leader busy up to the cut so that it has writes near it
    await bed.addHost('h3.example.com');
    await bed.served('h3.example.com');
    const cutAt = Date.now();
    const cut = bed.sim.faults.cutOff({ token: leader.token, mode: 'hang' });
    await bed.addHost('h4.example.com'); // the cut-off leader cannot see it
    await waitFor(
      `${leader.name} to step down`,
      async () => {
        const s = await leader.leaderStatus();
        return s.isLeader ? undefined : true;
      },
      60_000,
    );
    const taken = await bed.holderIs(standby.name);
    await bed.served('h4.example.com');
    const lastOld = bed.leases.filter((l) => l.holder === leader.name).at(-1)!;
    const oldWrites = bed.writes(leader.name);
    const newWrites = bed.writes(standby.name);
    expect(oldWrites.at(-1)!.at).toBeLessThanOrEqual(ms(lastOld.renewTime) + RD);
    expect(ms(taken.acquireTime) - ms(lastOld.renewTime)).toBeGreaterThanOrEqual(LD);
    expect(newWrites[0]!.at).toBeGreaterThanOrEqual(Math.floor(ms(taken.acquireTime)));
    expect(oldWrites.at(-1)!.at).toBeLessThan(newWrites[0]!.at);
    // back on the API, the old leader sees the new holder and stays a standby: it writes nothing
    bed.sim.faults.restore(cut);
    await waitFor(
      `${leader.name} to see ${standby.name} lead`,
      async () => {
        const s = await leader.leaderStatus();
        return s.holder === standby.name ? true : undefined;
      },
      60_000,
    );
    await bed.addHost('h5.example.com');
    await bed.served('h5.example.com');
    expect(bed.writes(leader.name)).toEqual(oldWrites);
    console.log(
      `cut-off take-over: last write by the cut leader ${oldWrites.at(-1)!.at - cutAt} ms after the cut ` +
        `(deadline ${ms(lastOld.renewTime) + RD - cutAt} ms); Lease acquired ${ms(taken.acquireTime) - cutAt} ms after the cut`,
    );
  }, 240_000);

  it('never had two replicas claiming leadership at once, and every change reached HAProxy', async () => {
    sampling = false;
    expect(samples).toBeGreaterThan(20);
    expect(overlaps).toEqual([]);
    for (const h of ['h0', 'h1', 'h2', 'h3', 'h4', 'h5']) await bed.served(`${h}.example.com`);
    // the Lease's history: every change of holder came after a release or a full lease duration
    for (const [i, l] of bed.leases.entries()) {
      const prev = bed.leases[i - 1];
      if (!prev || prev.holder === l.holder || l.holder === '' || prev.holder === '') continue;
      expect(ms(l.acquireTime) - ms(prev.renewTime)).toBeGreaterThanOrEqual(LD);
    }
  });
});
