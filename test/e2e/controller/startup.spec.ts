import { waitFor } from '#testbed/stack';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import { freePort, haptic, printedPort, root, type HapticProcess } from './support.js';

// Start-up tells the truth: what `haptic run` cannot work without is an exit 2 naming it; what
// may still come (the API server, the CRD, the config) is logged with the server's URL, retried,
// and named by /readyz until it does.
const CRD = join(root, 'helm/haptic/crds/haproxytemplateconfigs.yaml');
const base = ['-n', 'haptic', '-c', 'haptic', '--address', '127.0.0.1'];
const ports = ['--health-port', '0', '--metrics-port', '0', '--identity', 'e2e-startup'];

const config = {
  apiVersion: 'haproxy-haptic.org/v1alpha1',
  kind: 'HAProxyTemplateConfig',
  metadata: { namespace: 'haptic', name: 'haptic' },
  spec: {
    credentialsSecretRef: { name: 'dp-creds' },
    podSelector: { matchLabels: { app: 'haproxy' } },
    watchedResources: {
      services: { apiVersion: 'v1', resources: 'services', indexBy: ['metadata.name'] },
    },
    haproxyConfig: { template: 'global\n' },
  },
} as unknown as KubeObject;

describe('haptic run start-up', () => {
  let dir: string;
  let running: HapticProcess | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'haptic-startup-'));
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    running = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts `haptic run` and resolves once it printed its ports. */
  const start = async (args: string[]) => {
    running = haptic(['run', ...base, ...ports, ...args]);
    const proc = running;
    const health = await printedPort(proc);
    return { proc, health };
  };

  /** /readyz while it is not ready: 503 and the reasons. */
  const notReady = async (health: number, expected: string) =>
    waitFor(
      `/readyz to name "${expected}"`,
      async () => {
        const res = await fetch(`http://127.0.0.1:${health}/readyz`);
        const body = (await res.json()) as { error?: { index?: { reasons?: string[] } } };
        const reasons = body.error?.index?.reasons ?? [];
        return res.status === 503 && reasons.some((r) => r.includes(expected))
          ? reasons
          : undefined;
      },
      30_000,
    );

  it('exits 2 naming where it looked when there is no kubeconfig and no in-cluster account', async () => {
    const home = join(dir, 'home');
    const proc = haptic(['run', ...base, ...ports], {
      KUBECONFIG: '',
      HOME: home,
      KUBERNETES_SERVICE_HOST: '',
    });
    expect(await proc.exited).toEqual({ code: 2, signal: null });
    const out = proc.output();
    expect(out).toContain('no Kubernetes API credentials');
    expect(out).toContain('$KUBECONFIG (unset)');
    expect(out).toContain(join(home, '.kube', 'config'));
    expect(out).toContain('/var/run/secrets/kubernetes.io/serviceaccount/token');
  });

  it('exits 2 naming the file when --kubeconfig does not exist', async () => {
    const proc = haptic(['run', ...base, ...ports, '--kubeconfig', join(dir, 'nope.yaml')]);
    expect(await proc.exited).toEqual({ code: 2, signal: null });
    expect(proc.output()).toContain(`--kubeconfig: ${join(dir, 'nope.yaml')} does not exist`);
  });

  it('exits 2 naming a --module that is missing or exports no Nest module', async () => {
    const kc = join(dir, 'kc.yaml');
    writeFileSync(
      kc,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\n' +
        'users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    const missing = haptic([
      'run',
      ...base,
      ...ports,
      '--kubeconfig',
      kc,
      '--module',
      './no-such.js',
    ]);
    expect(await missing.exited).toEqual({ code: 2, signal: null });
    expect(missing.output()).toContain('--module ./no-such.js:');
    const notNest = join(dir, 'not-nest.mjs');
    writeFileSync(notNest, 'export default 42;\n');
    const wrong = haptic(['run', ...base, ...ports, '--kubeconfig', kc, '--module', notNest]);
    expect(await wrong.exited).toEqual({ code: 2, signal: null });
    expect(wrong.output()).toContain(`--module ${notNest}: exports no Nest module`);
  });

  it('an API server that does not answer: logged at error level with its URL, named by /readyz, /healthz live', async () => {
    const url = `http://127.0.0.1:${await freePort('127.0.0.1')}`;
    const kc = join(dir, 'down.yaml');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${url}"}}]\n` +
        'users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    const { proc, health } = await start(['--kubeconfig', kc]);
    const reasons = await notReady(health, `API server ${url} does not answer`);
    expect(reasons.join('\n')).toContain('retrying with backoff');
    await waitFor('an error log line with the URL', () =>
      proc
        .output()
        .split('\n')
        .some((l) => l.includes('"level":"error"') && l.includes(url))
        ? true
        : undefined,
    );
    expect((await fetch(`http://127.0.0.1:${health}/healthz`)).status).toBe(200);
  });

  describe('against kube-sim', () => {
    let sim: KubeSim;
    afterEach(async () => sim?.stop());

    it('a shutdown that does not end: exits 1 once --shutdown-timeout has passed, saying so', async () => {
      sim = await KubeSim.start({ port: 0, manifests: [CRD] });
      await sim.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'haptic' } });
      await sim.apply(config);
      const stuck = join(root, 'test/e2e/controller/fixtures/stuck-shutdown.mjs');
      const { proc } = await start([
        '--kubeconfig',
        sim.kubeconfigPath,
        '--module',
        stuck,
        '--shutdown-timeout',
        '2',
      ]);
      const signalled = performance.now();
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toEqual({ code: 1, signal: null });
      expect(performance.now() - signalled).toBeGreaterThanOrEqual(2000);
      expect(proc.output()).toContain(
        'haptic run: shutdown did not finish within 2 s (an API server or HAProxy pod not answering?); exiting',
      );
    });

    it('refuses a --shutdown-timeout that is no number of seconds above 0 (exit 2)', async () => {
      const proc = haptic(['run', ...base, ...ports, '--shutdown-timeout', '0s']);
      expect(await proc.exited).toEqual({ code: 2, signal: null });
      expect(proc.output()).toContain(
        'haptic run: --shutdown-timeout: a number of seconds above 0, not "0s"',
      );
    });

    it('credentials refused (401): named by /readyz with the URL', async () => {
      sim = await KubeSim.start({ port: 0, token: true, manifests: [CRD] });
      const kc = join(dir, 'bad-token.yaml');
      writeFileSync(kc, sim.kubeconfig.replace(sim.token!, 'not-the-token'));
      const { health } = await start(['--kubeconfig', kc]);
      await notReady(health, `API server ${sim.url} refused the credentials (401)`);
    });

    it('no CRD: named by /readyz and logged at error level with the URL', async () => {
      sim = await KubeSim.start({ port: 0 });
      const { proc, health } = await start(['--kubeconfig', sim.kubeconfigPath]);
      await notReady(health, `API server ${sim.url} has no HAProxyTemplateConfig CRD`);
      const line = proc
        .output()
        .split('\n')
        .find((l) => l.includes('"level":"error"') && l.includes(sim.url));
      expect(line).toContain('HAProxyTemplateConfig haptic/haptic');
    });

    type Node = Record<string | number, unknown>;
    const at = (o: unknown, ...path: (string | number)[]): Node =>
      path.reduce<unknown>((n, k) => (n as Node)[k], o) as Node;
    /** The shipped CRD, its first version changed by `edit` into an older one. */
    const staleCrd = (edit: (version: Node) => void): KubeObject => {
      const crd = parse(readFileSync(CRD, 'utf8')) as unknown;
      edit(at(crd, 'spec', 'versions', 0));
      return crd as KubeObject;
    };

    it('a CRD that does not serve the version it reads: exits 2 naming the CRD, what it found and the fix', async () => {
      sim = await KubeSim.start({ port: 0 });
      await sim.apply(staleCrd((v) => (v['name'] = 'v1alpha0')));
      const proc = haptic(['run', ...base, ...ports, '--kubeconfig', sim.kubeconfigPath]);
      expect(await proc.exited).toEqual({ code: 2, signal: null });
      const out = proc.output();
      expect(out).toContain(`API server ${sim.url}`);
      expect(out).toContain(
        'CustomResourceDefinition haproxytemplateconfigs.haproxy-haptic.org does not serve ' +
          'version v1alpha1 that this haptic reads (found: v1alpha0)',
      );
      expect(out).toContain('kubectl apply --server-side -f crds/');
    });

    it('a CRD whose schema lacks fields it reads: exits 2 naming them', async () => {
      sim = await KubeSim.start({ port: 0 });
      await sim.apply(
        staleCrd((v) => {
          delete at(v, 'schema', 'openAPIV3Schema', 'properties', 'spec', 'properties')[
            'podSelector'
          ];
        }),
      );
      const proc = haptic(['run', ...base, ...ports, '--kubeconfig', sim.kubeconfigPath]);
      expect(await proc.exited).toEqual({ code: 2, signal: null });
      expect(proc.output()).toContain(
        'its schema lacks 1 field(s) this version reads (spec.podSelector)',
      );
    });

    it('no HAProxyTemplateConfig: named by /readyz until it is created, then ready', async () => {
      sim = await KubeSim.start({ port: 0, manifests: [CRD] });
      const { health } = await start(['--kubeconfig', sim.kubeconfigPath]);
      await notReady(health, `HAProxyTemplateConfig haptic/haptic does not exist on ${sim.url}`);
      await sim.apply({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'haptic' },
      });
      await sim.apply(config);
      await waitFor(
        'readiness once the config exists',
        async () =>
          (await fetch(`http://127.0.0.1:${health}/readyz`)).status === 200 ? true : undefined,
        30_000,
      );
    });
  });
});
