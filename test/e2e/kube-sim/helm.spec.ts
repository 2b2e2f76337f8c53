/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- tests read API objects loosely */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim } from '#testbed/kube-sim';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const chart = join(root, 'test/fixtures/charts/ssa-demo');
const tools = execFileSync(process.execPath, [join(root, 'scripts/tools.mjs')], {
  encoding: 'utf8',
}).trim();

interface Run {
  code: number;
  out: string;
  err: string;
}

/** helm 4 (pinned) installs with server-side apply by default: install, upgrade, uninstall with no extra flags. */
describe('helm 4 against kube-sim', () => {
  let sim: KubeSim;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const run = (bin: string, args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        join(tools, bin),
        args,
        { env, timeout: 60_000, maxBuffer: 16 << 20 },
        (e, out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
      );
    });
  const ok = async (bin: string, ...args: string[]): Promise<string> => {
    const r = await run(bin, args);
    expect(r.code, `${bin} ${args.join(' ')}: ${r.err}`).toBe(0);
    return r.out;
  };
  const deployment = () => sim.get('apps/v1', 'Deployment', 'default', 'demo-web') as any;
  const managers = (o: any) =>
    (o.metadata.managedFields as any[]).map(
      (e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`,
    );

  beforeAll(async () => {
    sim = await KubeSim.start({ tls: true });
    dir = await mkdtemp(join(tmpdir(), 'kube-sim-helm-'));
    env = {
      PATH: process.env.PATH,
      HOME: dir,
      KUBECONFIG: sim.kubeconfigPath,
      KUBECACHEDIR: join(dir, 'kube-cache'),
      HELM_CACHE_HOME: join(dir, 'helm-cache'),
      HELM_CONFIG_HOME: join(dir, 'helm-config'),
      HELM_DATA_HOME: join(dir, 'helm-data'),
    };
  });
  afterAll(async () => {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('installs with server-side apply: every object is owned by the manager "helm" (operation Apply)', async () => {
    expect(await ok('helm', 'install', 'demo', chart)).toContain('STATUS: deployed');
    const d = deployment();
    expect(managers(d)).toEqual(['helm/Apply']);
    expect(d.metadata.labels.tier).toBe('front');
    expect(d.spec.template.spec.containers[0].env).toEqual([{ name: 'GREETING', value: 'hello' }]);
    expect(d.spec.replicas).toBe(1); // defaulted, not set by the chart
    const cm = sim.get('v1', 'ConfigMap', 'default', 'demo-settings') as any;
    expect(cm.data).toEqual({ image: 'nginx:1.27', greeting: 'hello' });
    expect(managers(cm)).toEqual(['helm/Apply']);
    expect(sim.get('v1', 'Service', 'default', 'demo-web')).toBeDefined();
  });

  it('kubectl scale takes spec.replicas under its own manager', async () => {
    expect(await ok('kubectl', 'scale', 'deployment/demo-web', '--replicas=4')).toContain('scaled');
    const d = deployment();
    expect(d.spec.replicas).toBe(4);
    expect(managers(d)).toEqual(['helm/Apply', 'kubectl/Update/scale']);
  });

  it('upgrade with values that drop fields: the fields are gone, replicas set by kubectl scale stay', async () => {
    expect(
      await ok('helm', 'upgrade', 'demo', chart, '--set', 'tier=', '--set', 'greeting='),
    ).toContain('STATUS: deployed');
    const d = deployment();
    expect(d.metadata.labels.tier).toBeUndefined();
    expect(d.metadata.labels['app.kubernetes.io/name']).toBe('web');
    expect(d.spec.template.spec.containers[0].env).toBeUndefined();
    expect(d.spec.template.spec.containers[0].image).toBe('nginx:1.27');
    expect(d.spec.replicas).toBe(4);
    expect((sim.get('v1', 'ConfigMap', 'default', 'demo-settings') as any).data).toEqual({
      image: 'nginx:1.27',
    });
    expect(await ok('helm', 'list', '-o', 'json')).toContain('"revision":"2"');
  });

  it('uninstalls: the objects and the release records are gone', async () => {
    expect(await ok('helm', 'uninstall', 'demo')).toContain('uninstalled');
    expect(sim.get('apps/v1', 'Deployment', 'default', 'demo-web')).toBeUndefined();
    expect(sim.get('v1', 'Service', 'default', 'demo-web')).toBeUndefined();
    expect(sim.get('v1', 'ConfigMap', 'default', 'demo-settings')).toBeUndefined();
    expect(sim.list('v1', 'Secret', 'default').map((s) => s.metadata.name)).toEqual([]);
  });
});
