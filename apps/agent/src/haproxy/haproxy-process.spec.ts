import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentPaths } from './haproxy-paths.js';
import { HaproxyProcess } from './haproxy-process.js';
import { parseHaproxyVersion } from './haproxy-version.js';

let server: Server | undefined;
let admin: Server | undefined;
let dir: string | undefined;
afterEach(() => {
  server?.close();
  admin?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let masterPid = 1;
const proc = (worker: number) =>
  `#<PID>          <type>          <reloads>       <uptime>        <version>\n${masterPid} master 1 [failed: 0] 0d00h00m01s 3.0.11\n# workers\n${worker} worker 0 0d00h00m00s 3.0.11\n# programs\n\n`;

/** A fake 3.0 master CLI: `reload` answers synchronously as HAProxy 3.0 does. */
function fakeMaster(reloadReply: string, attach = false): HaproxyProcess {
  dir = mkdtempSync(join(tmpdir(), 'fake-master-'));
  const paths = agentPaths(dir);
  let worker = 100;
  server = createServer({ allowHalfOpen: true }, (c) => {
    let msg = '';
    c.on('data', (d) => (msg += d.toString()));
    c.on('end', () => {
      if (msg.startsWith('reload')) {
        if (reloadReply.startsWith('Success=1')) worker++;
        c.end(reloadReply);
      } else c.end(proc(worker));
    });
  });
  server.listen(join(dir, 'm.sock'));
  // the admin socket answers as the current worker
  admin = createServer({ allowHalfOpen: true }, (c) => {
    c.on('data', () => undefined);
    c.on('end', () => c.end(`Name: HAProxy\nPid: ${worker}\n\n`));
  });
  admin.listen(join(dir, 'a.sock'));
  const p = new HaproxyProcess({
    bin: 'haproxy',
    paths: { ...paths, masterSocket: join(dir, 'm.sock'), adminSocket: join(dir, 'a.sock') },
    version: parseHaproxyVersion('HAProxy version 3.0.11-1 2025/06/01'),
    podIp: undefined,
    attach,
  });
  return p;
}

describe('HaproxyProcess reload, 3.x dialect', () => {
  it('reads Success=1 and the start-up log, then the new worker', async () => {
    const p = fakeMaster(
      'Success=1\n--\n[NOTICE]   (1) : New worker (101) forked\n[NOTICE]   (1) : Loading success.\n',
    );
    const out = await p.reload();
    expect(out).toEqual({
      ok: true,
      workerPid: 101,
      response: expect.stringContaining('Loading success') as string,
    });
  });

  it('reports Success=0 with the ALERTs HAProxy printed', async () => {
    const p = fakeMaster(
      "Success=0\n--\n[ALERT]    (1) : config : parsing [haproxy.cfg:9] : 'server x' : invalid address\n",
    );
    const out = await p.reload();
    expect(out.ok).toBe(false);
    expect(out.response).toContain('invalid address');
  });
});

describe('HaproxyProcess attached to a master another container runs', () => {
  it('attaches through the master socket, reloads there, and never stops that master', async () => {
    // The "master" is a process of ours, so that a signal sent to it would show.
    const master = spawn('sleep', ['30'], { stdio: 'ignore' });
    masterPid = master.pid!;
    try {
      const p = fakeMaster('Success=1\n--\n', true);
      await p.startOrAdopt();
      expect([p.attached, p.adopted, p.pid]).toEqual([true, true, master.pid]);
      expect(p.masterVersion).toBe('3.0.11');
      expect((await p.reload()).workerPid).toBe(101);
      await p.stop();
      await new Promise((r) => setTimeout(r, 200));
      expect([master.exitCode, master.signalCode]).toEqual([null, null]);
      expect(await p.refreshAttached()).toBe(true);
      server?.close();
      server = undefined;
      expect(await p.refreshAttached()).toBe(false);
    } finally {
      master.kill();
      masterPid = 1;
    }
  });

  it('gives up with an error naming the socket when no master answers', async () => {
    dir = mkdtempSync(join(tmpdir(), 'no-master-'));
    const p = new HaproxyProcess({
      bin: 'haproxy',
      paths: agentPaths(dir, join(dir, 'shared', 'master.sock')),
      version: parseHaproxyVersion('HAProxy version 3.0.11-1 2025/06/01'),
      podIp: undefined,
      attach: true,
      timeoutMs: 300,
    });
    await expect(p.startOrAdopt()).rejects.toThrow(
      `no HAProxy master with a worker answered on ${join(dir, 'shared', 'master.sock')}`,
    );
  });
});
