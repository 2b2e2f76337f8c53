import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { startAgent, type AgentOptions, type RunningAgent } from '../../../apps/agent/src/index.js';

/**
 * The HAProxy binary every agent suite runs, through the one switch: HAPTIC_HAPROXY_BIN (set
 * per major by describeForMajors), else the project's 3.0, else `haproxy` on PATH.
 */
export function haproxyBin(): string {
  return resolveHaproxyBinary();
}

export const USER = 'admin';
export const PASSWORD = 'test-secret';

export interface TestAgent {
  readonly agent: RunningAgent;
  readonly dir: string;
  readonly passwordFile: string;
  readonly api: ApiClient;
  close(): Promise<void>;
}

/** Starts an agent on a fresh config dir (or a given one), real HAProxy, password-file auth. */
export async function startTestAgent(
  opts: Partial<AgentOptions> & { dir?: string } = {},
): Promise<TestAgent> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'hapt-agent-'));
  const passwordFile = join(dir, '..', `${dir.split('/').pop() ?? 'x'}.pw`);
  writeFileSync(passwordFile, `${PASSWORD}\n`);
  const agent = await startAgent({
    configDir: join(dir, 'etc'),
    port: 0,
    haproxyBin: haproxyBin(),
    credentials: { kind: 'password-file', username: USER, file: passwordFile },
    reloadDelayMs: 20,
    ...opts,
  });
  return {
    agent,
    dir,
    passwordFile,
    api: new ApiClient(agent.url, USER, PASSWORD),
    async close() {
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(passwordFile, { force: true });
    },
  };
}

/** One HTTP answer, body kept as text. */
export interface ApiAnswer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  json<T = unknown>(): T;
}

export type Observer = (a: ApiAnswer) => void;

/** A tiny Dataplane API client that reports every answer to an observer (the spec checker). */
export class ApiClient {
  observer: Observer | undefined;

  constructor(
    readonly base: string,
    private user: string,
    private password: string,
  ) {}

  withCredentials(user: string, password: string): ApiClient {
    const c = new ApiClient(this.base, user, password);
    c.observer = this.observer;
    return c;
  }

  async request(
    method: string,
    path: string,
    init: {
      body?: string | Buffer | FormData;
      contentType?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<ApiAnswer> {
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${this.user}:${this.password}`).toString('base64')}`,
      ...(init.contentType ? { 'content-type': init.contentType } : {}),
      ...(init.headers ?? {}),
    };
    const res = await fetch(`${this.base}${path}`, { method, headers, body: init.body ?? null });
    const body = await res.text();
    const answer: ApiAnswer = {
      method,
      path: new URL(`${this.base}${path}`).pathname,
      status: res.status,
      headers: res.headers,
      body,
      json: <T>() => JSON.parse(body) as T,
    };
    this.observer?.(answer);
    return answer;
  }

  get(path: string): Promise<ApiAnswer> {
    return this.request('GET', path);
  }
  delete(path: string): Promise<ApiAnswer> {
    return this.request('DELETE', path);
  }
  postJson(path: string, value: unknown, method = 'POST'): Promise<ApiAnswer> {
    return this.request(method, path, {
      body: JSON.stringify(value),
      contentType: 'application/json',
    });
  }
  putJson(path: string, value: unknown): Promise<ApiAnswer> {
    return this.postJson(path, value, 'PUT');
  }
  text(method: string, path: string, body: string): Promise<ApiAnswer> {
    return this.request(method, path, { body, contentType: 'text/plain' });
  }
  upload(method: string, path: string, name: string, content: string | Buffer): Promise<ApiAnswer> {
    const form = new FormData();
    form.set('file_upload', new Blob([content]), name);
    return this.request(method, path, { body: form });
  }

  /** Current configuration version. */
  async version(): Promise<number> {
    return (await this.get('/v3/services/haproxy/configuration/version')).json<number>();
  }

  /** Pushes a configuration and waits for its reload; returns the reload record. */
  async pushConfig(body: string, query = ''): Promise<ApiAnswer> {
    const v = await this.version();
    return this.text('POST', `/v3/services/haproxy/configuration/raw?version=${v}${query}`, body);
  }

  /** Polls a reload until it is no longer in progress (bounded). */
  async waitReload(id: string): Promise<{ status: string; response?: string }> {
    for (let i = 0; i < 600; i++) {
      const r = (await this.get(`/v3/services/haproxy/reloads/${id}`)).json<{
        status: string;
        response?: string;
      }>();
      if (r.status !== 'in_progress') return r;
      await new Promise((res) => setTimeout(res, 20));
    }
    throw new Error(`reload ${id} still in progress`);
  }
}

/** A self-signed certificate + key (PEM, concatenated) for `cn`. */
export function selfSigned(cn: string, dir: string): string {
  const key = join(dir, `${cn}.key`);
  const crt = join(dir, `${cn}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      crt,
      '-days',
      '2',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      `subjectAltName=DNS:${cn}`,
    ],
    { stdio: 'ignore' },
  );
  const pem = execFileSync('cat', [crt, key]).toString();
  rmSync(key);
  rmSync(crt);
  return pem;
}

/** An HTTP upstream that answers `<name>` (plus the path), on a free loopback port. */
export async function startUpstream(
  name: string,
  host = '127.0.0.1',
): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`${name} ${req.url ?? ''}`);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

export { freePort } from '#testbed/testing';

/** The current worker PID of an agent's HAProxy. */
export async function workerPid(agent: RunningAgent): Promise<number> {
  const t = await agent.context.haproxy.showProc();
  const w = t.workers[0];
  if (!w) throw new Error('no current worker');
  return w.pid;
}
