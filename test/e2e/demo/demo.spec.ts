import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, waitFor } from '#testbed/stack';
import { demoDocCommands, sh } from '../docs/doc-commands.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface State {
  kubeconfig: string;
  haproxy: { http: string; https: string };
  controller: { health: string; metrics: string; webhook: string };
  agent: string;
  hosts: string[];
  ingressClass: string;
  library: string;
}

/** Processes whose command line or environment names `dir` (every pod process, HAProxy included). */
function processesUnder(dir: string): number[] {
  const needle = Buffer.from(dir);
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const seen = Buffer.concat([
        readFileSync(`/proc/${entry}/cmdline`),
        readFileSync(`/proc/${entry}/environ`),
      ]);
      if (seen.includes(needle)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('npm run demo', () => {
  let demo: ChildProcess;
  let output = '';
  let work: string;
  let state: State;
  let demoDir: string;
  const exited = () =>
    new Promise<number | null>((r) =>
      demo.exitCode !== null ? r(demo.exitCode) : demo.once('exit', (c) => r(c)),
    );

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'haptic-demo-test-'));
    const stateFile = join(work, 'state.json');
    demo = spawn(process.execPath, ['scripts/demo.mjs', '--state-file', stateFile], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    demo.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    demo.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    state = await waitFor(
      'the demo to write its state file',
      async () => {
        if (demo.exitCode !== null) throw new Error(`the demo exited: ${output}`);
        return existsSync(stateFile)
          ? (JSON.parse(await readFile(stateFile, 'utf8')) as State)
          : undefined;
      },
      240_000,
      500,
    );
    demoDir = dirname(state.kubeconfig);
    await waitFor('the demo to print its commands', () =>
      output.includes('Try:') ? true : undefined,
    );
  }, 300_000);

  afterAll(async () => {
    if (demo?.exitCode === null) {
      demo.kill('SIGKILL');
      await exited();
    }
    await rm(work, { recursive: true, force: true });
  });

  it('prints curl commands that work: HTTP by host and path, TLS with the generated certificate, the default backend', async () => {
    const url = new URL(state.haproxy.http);
    const via = (host: string, path: string) =>
      send({ address: url.hostname, port: Number(url.port || 80), host, path });
    expect(output).toContain(`curl -H 'Host: web.demo.local' ${state.haproxy.http}/`);
    const web = JSON.parse((await via('web.demo.local', '/')).body) as { service: string };
    expect(web.service).toBe('web');
    const api = JSON.parse((await via('web.demo.local', '/api/users')).body) as { service: string };
    expect(api.service).toBe('api');
    const other = JSON.parse((await via('nobody.example', '/x')).body) as { service: string };
    expect(other.service).toBe('fallback');
    const caFile = /--cacert (\S+)/.exec(output)![1]!;
    const tlsUrl = new URL(state.haproxy.https);
    const secure = await send({
      address: tlsUrl.hostname,
      port: Number(tlsUrl.port || 443),
      host: 'secure.demo.local',
      tls: { ca: await readFile(caFile, 'utf8') },
    });
    expect(secure.status).toBe(200);
    expect(secure.peerAltNames).toContain('DNS:secure.demo.local');
    expect(state.hosts).toEqual(['web.demo.local', 'secure.demo.local']);
    expect(state).toMatchObject({ ingressClass: 'haptic', library: 'ingress' });
  });

  it('serves the controller health, metrics and the agent API named in the state file', async () => {
    expect((await fetch(`${state.controller.health}/readyz`)).status).toBe(200);
    expect(await (await fetch(state.controller.metrics)).text()).toContain('# TYPE');
    expect((await fetch(`${state.agent}/info`)).status).toBe(401); // credentials required
    // The state file's webhook answers AdmissionReview over TLS (the chart's generated certificate).
    const hook = new URL(state.controller.webhook);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: hook.hostname,
          port: Number(hook.port),
          path: hook.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          rejectUnauthorized: false, // the chart's generated CA is in the webhook configuration
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect([200, 400]).toContain(status); // an empty review is refused, by the webhook itself
    // Helm's view of the release, with the kubeconfig the demo wrote.
    expect(output).toContain('helm install haptic helm/haptic');
  });

  it('the real kubectl works with the kubeconfig it wrote', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      const k = spawn(
        join(root, '.tools/bin/kubectl'),
        ['--kubeconfig', state.kubeconfig, 'get', 'pods', '-n', 'haptic', '-o', 'name'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let s = '';
      k.stdout.on('data', (c: Buffer) => (s += c.toString()));
      k.stderr.on('data', (c: Buffer) => (s += c.toString()));
      k.on('error', reject).on('exit', (code) => (code === 0 ? resolve(s) : reject(new Error(s))));
    });
    expect(out.match(/pod\/haptic-haproxy-/g)).toHaveLength(2);
    // Installed through the chart: the leader-elected controller pair.
    expect(out.match(/pod\/haptic-controller-/g)).toHaveLength(2);
  });

  it('the commands docs/getting-started.md shows work against it', async () => {
    const lines = demoDocCommands(root, state);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) {
      const r = await sh(line, { cwd: root, env: process.env, timeoutMs: 60_000 });
      expect(r, `${line}\n${r.output}`).toMatchObject({ code: 0 });
      if (line.startsWith('curl ')) expect(r.output, line).toContain('"service"');
    }
  });

  it('SIGTERM stops every process it started and removes its files', async () => {
    const before = processesUnder(demoDir);
    expect(before.length).toBeGreaterThanOrEqual(6); // two agents, two HAProxy, two controllers, echoes
    demo.kill('SIGTERM');
    expect(await exited()).toBe(0);
    expect(processesUnder(demoDir)).toEqual([]);
    expect(existsSync(demoDir)).toBe(false);
  });
});
