import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { GroupProcess, groupMembers, markedProcesses } from './process-group.js';

const dir = mkdtempSync(join(tmpdir(), 'hns-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Polls until the marked processes number `n`; on time-out the failure shows the last list seen. */
function markedCount(marker: string, n: number): Promise<void> {
  return vi.waitFor(() => expect(markedProcesses('MARK', marker), marker).toHaveLength(n), {
    timeout: 30_000,
    interval: 50,
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Starting processes on a loaded machine takes seconds: each test has a 60 s budget, and its
// polls fail with the last list of processes they saw.
describe('GroupProcess', () => {
  it('stops a process and its children with SIGTERM', async () => {
    const marker = `t-${process.pid}-term`;
    // sh starts a background child: both are in the process group.
    const p = new GroupProcess({
      command: 'sh',
      args: ['-c', 'sleep 60 & wait'],
      env: { PATH: process.env['PATH'] ?? '', MARK: marker },
      cwd: dir,
      logFile: join(dir, 'a.log'),
    });
    await markedCount(marker, 2);
    const exit = await p.stop(5000);
    expect(exit.signal).toBe('SIGTERM');
    expect(markedProcesses('MARK', marker)).toEqual([]);
  }, 60_000);

  it('lists the live members of a process group', async () => {
    const marker = `t-${process.pid}-members`;
    const p = new GroupProcess({
      command: 'sh',
      args: ['-c', 'sleep 60 & wait'],
      env: { PATH: process.env['PATH'] ?? '', MARK: marker },
      cwd: dir,
      logFile: join(dir, 'c.log'),
    });
    await markedCount(marker, 2);
    expect(groupMembers(p.pid!).sort()).toEqual(markedProcesses('MARK', marker).sort());
    expect(groupMembers(process.pid)).not.toContain(p.pid);
    await p.stop(5000);
    expect(groupMembers(p.pid!)).toEqual([]);
  }, 60_000);

  it('falls back to SIGKILL after the grace period', async () => {
    const p = new GroupProcess({
      command: 'sh',
      args: ['-c', 'trap "" TERM; touch trapped; while true; do sleep 0.1; done'],
      env: { PATH: process.env['PATH'] ?? '' },
      cwd: dir,
      logFile: join(dir, 'b.log'),
    });
    await vi.waitFor(() => expect(existsSync(join(dir, 'trapped')), 'trapped TERM').toBe(true), {
      timeout: 30_000,
      interval: 50,
    });
    const exit = await p.stop(300);
    expect(exit.signal).toBe('SIGKILL');
    expect(alive(p.pid!)).toBe(false);
  }, 60_000);
});
