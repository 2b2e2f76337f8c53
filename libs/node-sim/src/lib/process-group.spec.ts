import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GroupProcess, groupMembers, markedProcesses } from './process-group.js';

const dir = mkdtempSync(join(tmpdir(), 'hns-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Polls until `check` holds (bounded), so a slow machine does not make the test flaky. */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

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
    await eventually(() => markedProcesses('MARK', marker).length === 2);
    expect(markedProcesses('MARK', marker).length).toBe(2);
    const exit = await p.stop(5000);
    expect(exit.signal).toBe('SIGTERM');
    expect(markedProcesses('MARK', marker)).toEqual([]);
  });

  it('lists the live members of a process group', async () => {
    const marker = `t-${process.pid}-members`;
    const p = new GroupProcess({
      command: 'sh',
      args: ['-c', 'sleep 60 & wait'],
      env: { PATH: process.env['PATH'] ?? '', MARK: marker },
      cwd: dir,
      logFile: join(dir, 'c.log'),
    });
    await eventually(() => markedProcesses('MARK', marker).length === 2);
    expect(groupMembers(p.pid!).sort()).toEqual(markedProcesses('MARK', marker).sort());
    expect(groupMembers(process.pid)).not.toContain(p.pid);
    await p.stop(5000);
    expect(groupMembers(p.pid!)).toEqual([]);
  });

  it('falls back to SIGKILL after the grace period', async () => {
    const p = new GroupProcess({
      command: 'sh',
      args: ['-c', 'trap "" TERM; touch trapped; while true; do sleep 0.1; done'],
      env: { PATH: process.env['PATH'] ?? '' },
      cwd: dir,
      logFile: join(dir, 'b.log'),
    });
    await eventually(() => existsSync(join(dir, 'trapped')));
    const exit = await p.stop(300);
    expect(exit.signal).toBe('SIGKILL');
    expect(alive(p.pid!)).toBe(false);
  });
});
