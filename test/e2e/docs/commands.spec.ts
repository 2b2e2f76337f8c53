import { waitFor } from '#testbed/stack';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim } from '#testbed/kube-sim';
import { docCommands, sh, substitute, type DocCommand } from './doc-commands.js';

// Every shell command the documentation shows (README.md and docs/**: each line of a sh, bash,
// shell or console block) is executed against the test-bed, here or by the spec named for it.
// A new command example that no rule below claims fails this test, so the docs cannot show a
// command nobody runs. Placeholders are replaced by test-bed values (the table in `values`), and
// `haptic` is the repository's bin/haptic.js on PATH, as `npm install` would put it.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const commands = docCommands(root);

/** A command example run by another spec or by CI: the claim is checked, not taken on trust. */
interface Elsewhere {
  match: RegExp;
  by: string;
  /** What the named file must contain for the claim to hold. */
  proof: (text: string) => boolean;
}

const elsewhere: Elsewhere[] = [
  { match: /^npm ci$/, by: '.ci/run', proof: (t) => /^npm ci\b/m.test(t) },
  { match: /^npm test$/, by: '.ci/run', proof: (t) => /^npm test$/m.test(t) },
  {
    match: /^npm run demo$/,
    by: 'test/e2e/demo/demo.spec.ts',
    proof: (t) =>
      t.includes("'scripts/demo.mjs'") &&
      (
        JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
          scripts: Record<string, string>;
        }
      ).scripts['demo'] === 'node scripts/demo.mjs',
  },
  {
    // root only (buildah, podman): .ci/run builds the images through `npm run test:image`
    match: /^sudo npm run image\b/,
    by: 'scripts/test-image.mjs',
    proof: (t) =>
      t.includes("'scripts/image.mjs'") &&
      /^npm run test:image$/m.test(readFileSync(join(root, '.ci/run'), 'utf8')),
  },
  {
    // the images run as the chart runs them: the container test does (as root, from .ci/run)
    match: /^podman run .*--user 10001:10001 --read-only --tmpfs \/tmp --memory /,
    by: 'test/image/podman.ts',
    proof: (t) =>
      ['10001:10001', "'--read-only'", "'--tmpfs'", "'--memory'"].every((w) => t.includes(w)),
  },
  {
    // the commands the demo prints, run against a running demo with its state file's values
    match: /<haproxy address>|<node address>|<printed path>/,
    by: 'test/e2e/demo/demo.spec.ts',
    proof: (t) => t.includes('demoDocCommands('),
  },
];

const claimOf = (c: DocCommand): Elsewhere | undefined =>
  elsewhere.find((e) => e.match.test(c.text));
const local = commands.filter((c) => !claimOf(c));
const isLongRunning = (c: DocCommand): boolean => /^(npx )?haptic run\b/.test(c.text);
const where = (c: DocCommand): string => `${c.file}:${c.line}: ${c.text}`;

describe('every command example in the documentation runs', () => {
  let sim: KubeSim;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let values: Record<string, string>;

  beforeAll(async () => {
    sim = await KubeSim.start({ tls: true });
    work = await mkdtemp(join(tmpdir(), 'haptic-doc-commands-'));
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'haptic'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, 'bin/haptic.js'))} "$@"\n`,
    );
    chmodSync(join(bin, 'haptic'), 0o755);
    mkdirSync(join(work, 'manifests'));
    writeFileSync(join(work, 'manifests', 'web.yaml'), MANIFESTS);
    copyFileSync(join(root, 'docs/examples/minimal-config.yaml'), join(work, 'my-config.yaml'));
    env = {
      ...process.env,
      PATH: [bin, join(root, '.tools/bin'), process.env['PATH'] ?? ''].join(delimiter),
      // the reader's cluster is kube-sim; helm keeps its state out of the user's home
      KUBECONFIG: sim.kubeconfigPath,
      HELM_CACHE_HOME: join(work, 'helm-cache'),
      HELM_CONFIG_HOME: join(work, 'helm-config'),
      HELM_DATA_HOME: join(work, 'helm-data'),
      ...(process.env['HAPTIC_HAPROXY_BIN']
        ? { HAPTIC_HAPROXY_BIN: process.env['HAPTIC_HAPROXY_BIN'] }
        : {}),
    };
    values = {
      'my-config.yaml': join(work, 'my-config.yaml'),
      'config.yaml': join(work, 'my-config.yaml'),
      'ingress-library.yaml': join(work, 'ingress-library.yaml'),
      'my-manifests/': `${join(work, 'manifests')}/`,
      'manifests/': `${join(work, 'manifests')}/`,
      'out/': `${join(work, 'out')}/`,
      'kc.yaml': sim.kubeconfigPath,
      '~/.kube/config': sim.kubeconfigPath,
      './dist/index.js': join(root, 'examples/hello-module/dist/index.js'),
      '@team/haptic-extension': '@haptic-examples/hello-module',
    };
  }, 60_000);

  afterAll(async () => {
    await sim?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('finds the command examples of the README and the docs', () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(local.length).toBeGreaterThan(5);
  });

  it.each(commands.filter((c) => claimOf(c)).map((c) => [where(c), c] as const))(
    'run elsewhere, and the claim holds: %s',
    (_, c) => {
      const claim = claimOf(c)!;
      expect(existsSync(join(root, claim.by)), claim.by).toBe(true);
      expect(
        claim.proof(readFileSync(join(root, claim.by), 'utf8')),
        `${claim.by} runs ${c.text}`,
      ).toBe(true);
    },
  );

  // in page order: a page's later commands may use what its earlier ones wrote (assemble, then validate)
  it.each(local.filter((c) => !isLongRunning(c)).map((c) => [where(c), c] as const))(
    'exits 0: %s',
    async (_, c) => {
      const r = await sh(substitute(c.text, values), { cwd: root, env, timeoutMs: 180_000 });
      expect(r, `${where(c)}\n${r.output}`).toMatchObject({ code: 0 });
    },
    200_000,
  );

  it('a render example writes the configuration it promises', () => {
    expect(existsSync(join(work, 'out', 'haproxy.cfg'))).toBe(true);
    expect(readdirSync(join(work, 'out')).length).toBeGreaterThan(0);
  });

  it.each(local.filter(isLongRunning).map((c) => [where(c), c] as const))(
    'starts, answers /healthz and stops on Ctrl-C: %s',
    async (_, c) => {
      // the documented default ports (8080, 9090) are not the test's to take: it picks free ones
      const line = `exec ${substitute(c.text, values)} --address 127.0.0.1 --health-port 0 --metrics-port 0`;
      // its own process group, as a terminal runs a foreground job; stopped as Ctrl-C stops it
      const child = spawn('bash', ['-c', line], {
        cwd: root,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<string>((r) =>
        child.once('exit', (code, signal) => r(code === null ? `${signal}` : `${code}`)),
      );
      try {
        const port = await waitFor(
          `${where(c)} to listen`,
          () => {
            if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output}`);
            return /health and \/debug on :(\d+)/.exec(output)?.[1];
          },
          60_000,
        );
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(health.status, output).toBe(200);
      } finally {
        process.kill(-child.pid!, 'SIGINT');
      }
      await waitFor(
        `every process of ${where(c)} to end`,
        () => (processesNaming(sim.kubeconfigPath).length === 0 ? true : undefined),
        30_000,
      );
      // haptic exits 0 on Ctrl-C; npx in front of it ends by the same signal, as npm does
      expect(await exited, output.slice(-3000)).toBe(c.text.startsWith('npx ') ? 'SIGINT' : '0');
    },
    90_000,
  );
});

/** Processes whose command line names `needle` (npx's haptic child outlives npx by a moment). */
function processesNaming(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`).includes(needle)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A Service with its endpoints and an Ingress of class haptic, for the render examples. */
const MANIFESTS = `apiVersion: v1
kind: Service
metadata: { name: web, namespace: default }
spec:
  ports: [{ name: http, port: 80, targetPort: 8080 }]
  selector: { app: web }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: default
  labels: { kubernetes.io/service-name: web }
addressType: IPv4
ports: [{ name: http, port: 8080, protocol: TCP }]
endpoints:
  - addresses: [10.0.0.1]
    conditions: { ready: true, serving: true, terminating: false }
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: web, namespace: default }
spec:
  ingressClassName: haptic
  rules:
    - host: web.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: { service: { name: web, port: { number: 80 } } }
`;
