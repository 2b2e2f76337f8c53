import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, waitFor } from '#testbed/stack';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const demoSync = (args: string[]) =>
  spawnSync(process.execPath, ['scripts/demo.mjs', ...args], { cwd: root, encoding: 'utf8' });

describe('npm run demo -- --library', () => {
  it('documents --library in --help', () => {
    const r = demoSync(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--library NAME/);
    expect(r.stdout).toContain('ingress-nginx');
  });

  it('refuses an unknown library with exit 2, naming the known ones, before starting anything', () => {
    const r = demoSync(['--library', 'gateway-api']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown library "gateway-api"');
    expect(r.stderr).toContain('ingress, ingress-nginx');
    expect(r.stdout).not.toContain('preparing');
  });
});

interface State {
  haproxy: { http: string };
  hosts: string[];
  ingressClass: string;
  library: string;
}

describe('npm run demo -- --library ingress-nginx', () => {
  let demo: ChildProcess;
  let output = '';
  let work: string;
  let state: State;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'haptic-demo-nginx-test-'));
    const stateFile = join(work, 'state.json');
    demo = spawn(
      process.execPath,
      ['scripts/demo.mjs', '--library', 'ingress-nginx', '--state-file', stateFile],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
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
  }, 300_000);

  afterAll(async () => {
    if (demo?.exitCode === null) {
      const exited = new Promise((r) => demo.once('exit', r));
      demo.kill('SIGTERM');
      await exited;
    }
    if (work) await rm(work, { recursive: true, force: true });
  }, 60_000);

  it('installs the chart with the library and serves the examples through its IngressClass', async () => {
    expect(state).toMatchObject({ library: 'ingress-nginx', ingressClass: 'nginx' });
    expect(output).toContain('ingress-nginx (IngressClass nginx)');
    const url = new URL(state.haproxy.http);
    const web = await send({
      address: url.hostname,
      port: Number(url.port || 80),
      host: 'web.demo.local',
      path: '/api/users',
    });
    expect(web.status).toBe(200);
    expect((JSON.parse(web.body) as { service: string }).service).toBe('api');
  });
});
