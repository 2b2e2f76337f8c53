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
        return Promise.resolve('Pid: 42\nName: HAProxy\n');
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
});
