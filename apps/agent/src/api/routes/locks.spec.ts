import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentContext } from '../../agent-context.js';
import { ConfigFile } from '../../lib/config-file.js';
import { Mutex } from '../../lib/mutex.js';
import { Router, type ApiRequest } from '../http.js';
import { configurationRoutes } from './configuration.routes.js';
import { infoRoutes } from './info.routes.js';
import { runtimeServersRoutes } from './runtime-servers.routes.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function request(method: string, path: string, query: string, body = ''): ApiRequest {
  return {
    method,
    path,
    query: new URLSearchParams(query),
    params: {},
    headers: {},
    body: Buffer.from(body),
  };
}

/** A context whose `haproxy -c` stays in flight until the test releases it. */
function slowCheckContext() {
  const dir = mkdtempSync(join(tmpdir(), 'agent-locks-'));
  dirs.push(dir);
  const configFile = join(dir, 'haproxy.cfg');
  writeFileSync(configFile, '# _version=1\nglobal\n');
  let address = '10.0.0.1';
  let started!: () => void;
  const checkStarted = new Promise<void>((r) => (started = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const sent: string[] = [];
  const haproxy = {
    check: async (): Promise<{ ok: boolean; output: string }> => {
      started();
      await gate;
      return { ok: true, output: '' };
    },
    admin: {
      send: (cmd: string) => {
        sent.push(cmd);
        const set = /^set server be_a\/a1 addr (\S+)/.exec(cmd);
        if (set) address = set[1] ?? address;
        if (cmd.startsWith('show servers state'))
          return Promise.resolve(
            `1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_port\n3 be_a 1 a1 ${address} 2 0 1 80\n`,
          );
        return Promise.resolve(set ? '' : 'Pid: 42\nName: HAProxy\n');
      },
    },
  };
  const ctx = {
    paths: { runDir: dir, configFile, adminSocket: join(dir, 'admin.sock') },
    haproxy,
    config: new ConfigFile(configFile),
    configLock: new Mutex(),
    haproxyLock: new Mutex(),
  } as unknown as AgentContext;
  const router = new Router();
  configurationRoutes(router, ctx);
  infoRoutes(router, ctx);
  runtimeServersRoutes(router, ctx);
  return { ctx, router, configFile, sent, checkStarted, release: () => release() };
}

describe('agent locks: the stored copy check is off the runtime path', () => {
  it('a runtime command completes while a configuration push is still in haproxy -c', async () => {
    const t = slowCheckContext();
    const rawPath = '/v3/services/haproxy/configuration/raw';
    const push = t.router
      .resolve('POST', rawPath)
      .handler(request('POST', rawPath, 'version=1&skip_reload=true', 'global\n  maxconn 10\n'));
    await t.checkStarted;
    const infoPath = '/v3/services/haproxy/runtime/info';
    // would never settle if runtime commands waited behind the push's check (the gate is closed)
    const info = await t.router.resolve('GET', infoPath).handler(request('GET', infoPath, ''));
    expect(info.status).toBe(200);
    expect(t.sent).toEqual(['show info']);
    // while the check runs, the file a reload would read is still the last checked one
    expect(readFileSync(t.configFile, 'utf8')).toBe('# _version=1\nglobal\n');
    t.release();
    const res = await push;
    expect(res.status).toBe(201);
    expect(readFileSync(t.configFile, 'utf8')).toContain('maxconn 10');
    expect(t.ctx.config.version).toBe(2);
  });

  it('a runtime server change made while a push is in haproxy -c completes and is kept over the pushed body', async () => {
    const t = slowCheckContext();
    const rawPath = '/v3/services/haproxy/configuration/raw';
    const push = t.router
      .resolve('POST', rawPath)
      .handler(
        request(
          'POST',
          rawPath,
          'version=1&skip_reload=true',
          'global\n  maxconn 10\nbackend be_a\n  server a1 10.0.0.1:80\n',
        ),
      );
    await t.checkStarted;
    const serverPath = '/v3/services/haproxy/runtime/backends/{parent_name}/servers/{name}';
    const put = {
      ...request('PUT', serverPath, '', JSON.stringify({ address: '10.0.0.9', port: 80 })),
      params: { parent_name: 'be_a', name: 'a1' },
      headers: { 'content-type': 'application/json' },
    };
    // would never settle if the server's write-through waited behind the push's check
    const res = await t.router.resolve('PUT', serverPath).handler(put);
    expect(res.status).toBe(200);
    expect(t.sent).toContain('set server be_a/a1 addr 10.0.0.9 port 80');
    t.release();
    expect((await push).status).toBe(201);
    // the pushed body was rendered before the change: the change is written over it
    const file = readFileSync(t.configFile, 'utf8');
    expect(file).toContain('  maxconn 10\n');
    expect(file).toContain('  server a1 10.0.0.9:80\n');
    expect(t.ctx.config.version).toBe(2);
  });
});
