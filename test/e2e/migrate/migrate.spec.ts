// `haptic migrate --from ingress-nginx` as a user runs it: the built CLI on a kubectl dump, on
// multi-document YAML, and on a live API server (kube-sim, with TLS and a token).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const haptic = join(root, 'bin/haptic.js');
const dump = fileURLToPath(new URL('./fixtures/ingresses.yaml', import.meta.url));
const plain = fileURLToPath(new URL('./fixtures/plain.yaml', import.meta.url));
const P = 'nginx.ingress.kubernetes.io/';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [haptic, 'migrate', ...args], (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

interface JsonReport {
  from: string;
  exitCode: number;
  totals: Record<string, number>;
  ingresses: {
    namespace: string;
    name: string;
    ingressClass: string;
    annotations: { annotation: string; verdict: string; detail: string }[];
  }[];
}

describe('haptic migrate --from ingress-nginx', () => {
  it('reports a kubectl dump of mixed Ingresses per Ingress and annotation, then totals; exit 4', async () => {
    const r = await run(['--from', 'ingress-nginx', '-f', dump]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 4, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('dev/plain (class nginx): no ingress-nginx annotations');
    expect(lines[1]).toBe('prod/legacy (class nginx)');
    expect(lines.slice(2, 7).map((l) => l.trim().split(/\s+/, 2).join(' '))).toEqual([
      `not-yet-honoured ${P}auth-tls-verify-depth:`,
      `refused ${P}backend-protocol:`,
      `deviation ${P}enable-cors:`,
      `unknown ${P}enable-corss:`,
      `refused ${P}server-snippet:`,
    ]);
    expect(lines[2]).toContain('planned: issue 35, not refused');
    expect(lines[3]).toContain('value "FCGI": ');
    expect(lines[4]).toContain('no Content-Type');
    expect(lines[6]).toContain('snippets are never pasted');
    expect(lines[7]).toBe('prod/shop (class nginx)');
    expect(lines[8]).toMatch(/^ {2}refused +\S+configuration-snippet: snippets are never pasted/);
    expect(lines.at(-1)).toBe(
      'Totals: 3 Ingresses, 8 annotations: 1 honoured, 2 deviation, 3 refused, 1 not-yet-honoured, 1 unknown',
    );
    expect(r.stdout).not.toContain('last-applied-configuration');
  });

  it('prints the same report as JSON with -o json', async () => {
    const r = await run(['--from', 'ingress-nginx', '-f', dump, '-o', 'json']);
    expect(r.code).toBe(4);
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(report.from).toBe('ingress-nginx');
    expect(report.exitCode).toBe(4);
    expect(report.totals).toEqual({
      honoured: 1,
      deviation: 2,
      refused: 3,
      'not-yet-honoured': 1,
      unknown: 1,
    });
    const shop = report.ingresses.find((i) => i.name === 'shop');
    expect(shop?.annotations.map((a) => [a.annotation.slice(P.length), a.verdict])).toEqual([
      ['configuration-snippet', 'refused'],
      ['rewrite-target', 'deviation'],
      ['use-regex', 'honoured'],
    ]);
  });

  it('exits 0 for multi-document YAML whose Ingresses carry no ingress-nginx annotation', async () => {
    const r = await run(['--from', 'ingress-nginx', '-f', plain]);
    expect(r).toEqual({
      code: 0,
      stdout:
        'dev/plain (class nginx): no ingress-nginx annotations\n' +
        'Totals: 1 Ingress, 0 annotations: 0 honoured, 0 deviation, 0 refused, 0 not-yet-honoured, 0 unknown\n',
      stderr: '',
    });
  });

  it('exits 2 naming the problem for bad flags and unreadable input', async () => {
    const cases: [string[], RegExp][] = [
      [['--from', 'traefik', '-f', plain], /--from must be ingress-nginx/],
      [['--from', 'ingress-nginx'], /either -f FILE .* or --kubeconfig FILE/],
      [['--from', 'ingress-nginx', '-f', plain, '-A'], /-A and -n need --kubeconfig/],
      [['--from', 'ingress-nginx', '-f', join(root, 'no-such.yaml')], /no-such\.yaml/],
      [['--from', 'ingress-nginx', '-f', plain, '-o', 'xml'], /--output must be text or json/],
    ];
    const runs = await Promise.all(cases.map(([args]) => run(args)));
    cases.forEach(([args, message], i) => {
      const r = runs[i]!;
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toMatch(message);
    });
  });

  it('documents its flags and exit codes in --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--from',
      '--file',
      '--kubeconfig',
      '--all-namespaces',
      '--namespace',
      '--output',
    ])
      expect(r.stdout).toContain(flag);
    expect(r.stdout).toContain('exit 0 all honoured, 3 some with a deviation, 4 any refused');
  });
});

describe('haptic migrate --kubeconfig (a live API server)', () => {
  let sim: KubeSim;

  beforeAll(async () => {
    sim = await KubeSim.start({ tls: true });
    const list = parse(await readFile(dump, 'utf8')) as { items: KubeObject[] };
    const namespaces = ['prod', 'dev'].map((name) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    }));
    await sim.apply([...namespaces, ...list.items]);
  });
  afterAll(async () => sim.stop());

  it('reads every namespace with -A, the same report as from the dump', async () => {
    const live = await run(['--from', 'ingress-nginx', '--kubeconfig', sim.kubeconfigPath, '-A']);
    const fromDump = await run(['--from', 'ingress-nginx', '-f', dump]);
    expect({ code: live.code, stderr: live.stderr }).toEqual({ code: 4, stderr: '' });
    expect(live.stdout).toBe(fromDump.stdout);
  });

  it('reads one namespace with -n', async () => {
    const r = await run([
      '--from',
      'ingress-nginx',
      '--kubeconfig',
      sim.kubeconfigPath,
      '-n',
      'dev',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(report.ingresses.map((i) => `${i.namespace}/${i.name}`)).toEqual(['dev/plain']);
  });

  it('exits 1 when the API server cannot be reached, 2 for a missing kubeconfig', async () => {
    const gone = await KubeSim.start({ tls: true });
    const path = gone.kubeconfigPath;
    const copy = await readFile(path, 'utf8');
    await gone.stop();
    const dir = await mkdtemp(join(tmpdir(), 'migrate-'));
    await writeFile(join(dir, 'kc'), copy);
    const r = await run(['--from', 'ingress-nginx', '--kubeconfig', join(dir, 'kc'), '-A']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^haptic migrate: GET \/apis\/networking\.k8s\.io\/v1\/ingresses/);
    const missing = await run(['--from', 'ingress-nginx', '--kubeconfig', join(dir, 'none'), '-A']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--kubeconfig: .*none does not exist/);
    await rm(dir, { recursive: true, force: true });
  });
});
