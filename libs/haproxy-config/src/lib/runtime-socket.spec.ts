import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeCommandError } from '../haproxy-config.errors.js';
import { RuntimeSocket, isSuccessReply } from './runtime-socket.js';

let server: Server | undefined;
let dir: string | undefined;
afterEach(() => {
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A fake CLI that, like HAProxy's master CLI, answers only once the client half-closes. */
function fakeCli(answer: (msg: string) => string): string {
  dir = mkdtempSync(join(tmpdir(), 'rtsock-'));
  const path = join(dir, 's.sock');
  server = createServer({ allowHalfOpen: true }, (c) => {
    let msg = '';
    c.on('data', (d) => (msg += d.toString()));
    c.on('end', () => c.end(answer(msg)));
  });
  server.listen(path);
  return path;
}

describe('RuntimeSocket', () => {
  it('half-closes, reads the whole reply and passes the message through unchanged', async () => {
    const path = fakeCli((m) => `got:${m}`);
    await expect(new RuntimeSocket(path).send('show info')).resolves.toBe('got:show info\n');
  });
  it('treats an empty reply as a failure unless allowed', async () => {
    const path = fakeCli(() => '');
    await expect(new RuntimeSocket(path).send('add map x <<\na b\n')).rejects.toBeInstanceOf(
      RuntimeCommandError,
    );
    await expect(new RuntimeSocket(path).send('reload', { allowEmpty: true })).resolves.toBe('');
  });
  it('checks replies against success patterns', async () => {
    const path = fakeCli(() => 'No such backend.\n');
    await expect(new RuntimeSocket(path).expect('set server a/b weight 1')).rejects.toThrow(
      /No such backend/,
    );
    expect(isSuccessReply('\n')).toBe(true);
    expect(isSuccessReply('New server registered.\n', [/^New server registered/])).toBe(true);
  });
});
