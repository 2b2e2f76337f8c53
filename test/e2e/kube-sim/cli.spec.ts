import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const haptic = join(root, 'bin/haptic.js');
const crds = ['gatewayclasses', 'gateways', 'httproutes'].map((n) =>
  join(root, 'test/fixtures/gateway-api', `gateway.networking.k8s.io_${n}.yaml`),
);
const session = fileURLToPath(new URL('./fixtures/session.yaml', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-sim-cli-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** Runs `haptic kube-sim` until it prints its first line; returns the child and that line. */
function startCli(args: string[]) {
  const child = spawn(process.execPath, [haptic, 'kube-sim', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${err}`)));
  });
  return { child, firstLine, stderr: () => err };
}

describe('haptic kube-sim', () => {
  it('serves with TLS and a token, applies manifests at start, writes the kubeconfig and stops on SIGTERM with 0', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const { child, firstLine, stderr } = startCli([
      '--tls',
      '--kubeconfig-out',
      kubeconfig,
      '-o',
      'json',
      ...crds.flatMap((c) => ['--apply', c]),
      '--apply',
      session,
    ]);
    const info = JSON.parse(await firstLine) as { url: string; kubeconfig: string };
    expect(info.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(info.kubeconfig).toBe(kubeconfig);
    const cfg = await readFile(kubeconfig, 'utf8');
    expect(cfg).toContain(`server: ${info.url}`);
    expect(cfg).toContain('certificate-authority-data:');
    expect(cfg).toMatch(/token: \S+/);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code, signal] = (await exited) as [number | null, string | null];
    expect({ code, signal, stderr: stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('exits 2 for a manifest it cannot apply and for a bad port', async () => {
    const bad = spawn(process.execPath, [haptic, 'kube-sim', '--apply', session], {
      stdio: 'pipe',
    });
    let err = '';
    bad.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const [code] = await once(bad, 'exit');
    expect(code).toBe(2);
    expect(err).toContain(
      'no matches for kind "GatewayClass" in version "gateway.networking.k8s.io/v1"',
    );
    const port = spawn(process.execPath, [haptic, 'kube-sim', '--port', 'x'], { stdio: 'pipe' });
    expect((await once(port, 'exit'))[0]).toBe(2);
  });
});
