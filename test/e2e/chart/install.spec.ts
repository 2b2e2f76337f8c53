/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- API objects are read loosely */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim } from '#kube-sim';
import { chartDir, helm, template, type Manifest } from './helm.js';

const NS = 'haptic';
/** The webhook objects are installed too (the controller does not serve the webhook yet). */
const WEBHOOK = { 'webhook.enabled': true };

/** `helm install` of the chart with the pinned helm 4 (server-side apply) against kube-sim. */
describe('helm install, upgrade and uninstall of the chart on kube-sim', () => {
  let sim: KubeSim;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const run = (args: string[]): Promise<{ code: number; out: string; err: string }> =>
    new Promise((resolve) => {
      execFile(helm(), args, { env, timeout: 120_000, maxBuffer: 16 << 20 }, (e, out, err) =>
        resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
      );
    });
  const ok = async (...args: string[]): Promise<string> => {
    const r = await run(args);
    expect(r.code, `helm ${args.join(' ')}: ${r.err}`).toBe(0);
    return r.out;
  };
  const get = (m: Pick<Manifest, 'apiVersion' | 'kind' | 'metadata'>): any =>
    sim.get(m.apiVersion, m.kind, m.metadata.namespace ?? '', m.metadata.name);
  const b64 = (s: string) => Buffer.from(s, 'base64').toString();

  /** What `helm template` renders for the release (the objects the install must create). */
  const expected = () =>
    template(WEBHOOK, { release: 'edge', namespace: NS }).map((m) => ({
      apiVersion: m.apiVersion,
      kind: m.kind,
      metadata: { name: m.metadata.name, ...(m.metadata.namespace ? { namespace: NS } : {}) },
    }));

  beforeAll(async () => {
    sim = await KubeSim.start({ tls: true });
    dir = await mkdtemp(join(tmpdir(), 'haptic-chart-install-'));
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
    await sim?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('installs the CRD and every object of the chart with server-side apply', async () => {
    const out = await ok(
      'install',
      'edge',
      chartDir,
      '-n',
      NS,
      '--create-namespace',
      '--set',
      'webhook.enabled=true',
    );
    expect(out).toContain('STATUS: deployed');
    const crd = sim.get(
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      '',
      'haproxytemplateconfigs.haproxy-haptic.org',
    ) as any;
    expect(crd.status.conditions.find((c: any) => c.type === 'Established').status).toBe('True');
    const missing = expected().filter((m) => get(m) === undefined);
    expect(missing).toEqual([]);
    const controller = get({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'edge-haptic-controller', namespace: NS },
    });
    expect(
      controller.metadata.managedFields.map((f: any) => `${f.manager}/${f.operation}`),
    ).toEqual(['helm/Apply']);
    // The config went through the CRD's schema (kube-sim validates and prunes by it) unchanged.
    const cfg = get({
      apiVersion: 'haproxy-haptic.org/v1alpha1',
      kind: 'HAProxyTemplateConfig',
      metadata: { name: 'edge-haptic', namespace: NS },
    });
    const rendered = template(WEBHOOK, { release: 'edge', namespace: NS }).find(
      (m) => m.kind === 'HAProxyTemplateConfig',
    )!;
    expect(cfg.spec.templateSnippets).toEqual(rendered.spec.templateSnippets);
    expect(cfg.spec.podSelector).toEqual(rendered.spec.podSelector);
  });

  it('keeps the generated password and webhook certificate across an upgrade that rolls the controller', async () => {
    const secret = (name: string) =>
      get({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS } });
    const password = b64(secret('edge-haptic-credentials').data.dataplane_password);
    const ca = secret('edge-haptic-webhook-tls').data['ca.crt'];
    const deployment = (name: string) =>
      get({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS } });
    const haproxyBefore = JSON.stringify(deployment('edge-haptic-haproxy').spec.template);
    const out = await ok(
      'upgrade',
      'edge',
      chartDir,
      '-n',
      NS,
      '--set',
      'controller.logLevel=debug',
      '--set',
      'webhook.enabled=true',
    );
    expect(out).toContain('STATUS: deployed');
    expect(b64(secret('edge-haptic-credentials').data.dataplane_password)).toBe(password);
    expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(secret('edge-haptic-webhook-tls').data['ca.crt']).toBe(ca);
    const vwc = get({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'edge-haptic-webhook' },
    });
    expect(vwc.webhooks.map((w: any) => w.clientConfig.caBundle)).toEqual([ca, ca]);
    expect(deployment('edge-haptic-controller').spec.template.spec.containers[0].args).toContain(
      '--log-level=debug',
    );
    const cfg = get({
      apiVersion: 'haproxy-haptic.org/v1alpha1',
      kind: 'HAProxyTemplateConfig',
      metadata: { name: 'edge-haptic', namespace: NS },
    });
    expect(cfg.spec.logging.level).toBe('debug');
    // The HAProxy pods are not rolled by a controller setting.
    expect(JSON.stringify(deployment('edge-haptic-haproxy').spec.template)).toBe(haproxyBefore);
  });

  it('uninstalls everything but the CRD', async () => {
    await ok('uninstall', 'edge', '-n', NS, '--wait');
    const left = expected().filter((m) => get(m) !== undefined);
    expect(left).toEqual([]);
    expect(
      sim.get(
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        '',
        'haproxytemplateconfigs.haproxy-haptic.org',
      ),
    ).toBeDefined();
    expect(sim.list('v1', 'Secret', NS)).toEqual([]);
  });
});
