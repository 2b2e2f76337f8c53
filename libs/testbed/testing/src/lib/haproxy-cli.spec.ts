import { describe, expect, it } from 'vitest';
import { parseMasterShowProc } from './haproxy-cli.js';

describe('parseMasterShowProc', () => {
  it('reads master, current and old workers (2.6 and 3.0 share the columns)', () => {
    const text = [
      '#<PID>          <type>          <reloads>       <uptime>        <version>      ',
      '6304            master          2 [failed: 1]   0d00h00m01s     3.0.11-1+deb13u4',
      '# workers',
      '6332            worker          0               0d00h00m00s     3.0.11-1+deb13u4',
      '# old workers',
      '6305            worker          1               0d00h00m01s     3.0.11-1+deb13u4',
      '# programs',
      '',
    ].join('\n');
    const proc = parseMasterShowProc(text);
    expect(proc.master).toEqual({
      pid: 6304,
      type: 'master',
      reloads: 2,
      failed: 1,
      version: '3.0.11-1+deb13u4',
    });
    expect(proc.workers.map((w) => w.pid)).toEqual([6332]);
    expect(proc.oldWorkers.map((w) => [w.pid, w.reloads])).toEqual([[6305, 1]]);
  });

  it('refuses a reply that is not show proc', () => {
    expect(() => parseMasterShowProc('Unknown command.\n')).toThrow(/not a 'show proc' reply/);
  });
});
