import { describe, expect, it } from 'vitest';
import { parseTemplateConfig, type TemplateConfig } from '#core';
import type {
  AdmissionDryRunPort,
  DryRunRender,
  DryRunVerdict,
  OverlayChange,
  RenderedOutputs,
} from '#events';
import type { AdmissionRequest } from './admission-review.js';
import { review, type ReviewerDeps } from './review.js';

const spec = (webhook: boolean) => ({
  credentialsSecretRef: { name: 'creds' },
  podSelector: { matchLabels: { app: 'haproxy' } },
  templatingSettings: { extraContext: { controller_name: 'me' } },
  watchedResources: {
    ingresses: {
      apiVersion: 'networking.k8s.io/v1',
      resources: 'ingresses',
      indexBy: ['metadata.namespace'],
      enableValidationWebhook: webhook,
    },
    ingressclasses: {
      apiVersion: 'networking.k8s.io/v1',
      resources: 'ingressclasses',
      indexBy: ['metadata.name'],
    },
  },
  haproxyConfig: { template: 'global\n' },
});
const configOf = (webhook = true): TemplateConfig => {
  const r = parseTemplateConfig(spec(webhook));
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
};
const out = (cfg: string): RenderedOutputs => ({
  haproxyConfig: cfg,
  maps: {},
  files: {},
  sslCertificates: {},
  crtLists: {},
});

/** A dry-run port whose render reflects the overlaid Ingress's host, recording every call. */
class FakeDryRun implements AdmissionDryRunPort {
  calls: string[] = [];
  changes: OverlayChange[] = [];
  list = () => Promise.resolve([{ metadata: { name: 'haptic' }, spec: { controller: 'me' } }]);
  render(_c: TemplateConfig, changes: readonly OverlayChange[]): Promise<DryRunRender> {
    this.calls.push('render');
    this.changes.push(...changes);
    const o = changes[0]?.object as { spec?: { rules?: { host?: string }[] } } | undefined;
    const host = o?.spec?.rules?.[0]?.host ?? '';
    if (host.includes('quarantine'))
      return Promise.resolve({
        ok: true,
        outputs: out('global\n'),
        quarantined: [
          {
            watched: 'ingresses',
            namespace: 'apps',
            name: 'web',
            reason: host.includes('named')
              ? 'Ingress apps/web: annotation x: bad'
              : 'annotation x: bad',
          },
        ],
      });
    return Promise.resolve({
      ok: true,
      outputs: out(`global\n# ${host.length > 20 ? 'long' : 'short'}\n`),
      quarantined: [],
    });
  }
  validate(_c: TemplateConfig, o: RenderedOutputs, haproxyCheck: boolean): Promise<DryRunVerdict> {
    this.calls.push(haproxyCheck ? 'validate+haproxy' : 'validate');
    return Promise.resolve(
      o.haproxyConfig.includes('long') ? { ok: false, reason: 'haproxy.cfg:3: bad' } : { ok: true },
    );
  }
  runTests = () => Promise.resolve<DryRunVerdict>({ ok: true });
}

function deps(config: TemplateConfig | undefined, dryRun: FakeDryRun): ReviewerDeps {
  let passed: RenderedOutputs | undefined;
  return {
    dryRun,
    testBudgetMs: 1000,
    current: () => config,
    baseline: () => passed,
    passed: (_c, o) => (passed = o),
  };
}

const ingress = (host: string, cls = 'haptic') => ({
  metadata: { namespace: 'apps', name: 'web' },
  spec: { ingressClassName: cls, rules: [{ host }] },
});
const req = (
  object: object,
  operation: AdmissionRequest['operation'] = 'CREATE',
): AdmissionRequest => ({
  uid: 'u',
  kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
  resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
  namespace: 'apps',
  operation,
  object: operation === 'DELETE' ? null : (object as Record<string, unknown>),
  oldObject: operation === 'CREATE' ? null : (object as Record<string, unknown>),
});

describe('review of watched objects', () => {
  it('allows another class at once, without a render', async () => {
    const fake = new FakeDryRun();
    const r = await review(deps(configOf(), fake), req(ingress('a.example.com', 'nginx')));
    expect(r).toMatchObject({ result: 'skipped', verdict: { allowed: true } });
    expect(fake.calls).toEqual([]);
  });

  it('skips objects of resources that do not enable the webhook', async () => {
    const fake = new FakeDryRun();
    const r = await review(deps(configOf(false), fake), req(ingress('a.example.com')));
    expect(r.result).toBe('skipped');
    expect(fake.calls).toEqual([]);
  });

  it('denies a quarantined object naming it and the reason', async () => {
    const r = await review(
      deps(configOf(), new FakeDryRun()),
      req(ingress('quarantine.example.com')),
    );
    expect(r.verdict).toEqual({
      allowed: false,
      code: 400,
      message: 'Ingress apps/web: annotation x: bad',
    });
  });

  it('runs haproxy -c first, then only structural checks while only runtime parts change', async () => {
    const fake = new FakeDryRun();
    const d = deps(configOf(), fake);
    expect((await review(d, req(ingress('a.example.com')))).haproxyCheck).toBe(true);
    expect((await review(d, req(ingress('b.example.com'), 'UPDATE'))).haproxyCheck).toBe(false);
    expect(fake.calls).toEqual(['render', 'validate+haproxy', 'render', 'validate']);
    expect(fake.changes.map((c) => `${c.resource}:${c.operation}`)).toEqual([
      'ingresses:create',
      'ingresses:update',
    ]);
  });

  it('denies a render that fails validation, naming suspect fields', async () => {
    const r = await review(
      deps(configOf(), new FakeDryRun()),
      req(ingress('a-very-long-host.example.com\nlua-load x')),
    );
    expect(r.verdict.message).toBe(
      'Ingress apps/web: haproxy.cfg:3: bad (suspect field: spec.rules[0].host)',
    );
  });

  it('overlays a DELETE as a removal', async () => {
    const fake = new FakeDryRun();
    await review(deps(configOf(), fake), req(ingress('a.example.com'), 'DELETE'));
    expect(fake.changes.map((c) => c.operation)).toEqual(['delete']);
  });

  it('allows with a warning before any config is in force', async () => {
    const r = await review(deps(undefined, new FakeDryRun()), req(ingress('a.example.com')));
    expect(r.verdict.allowed).toBe(true);
    expect(r.verdict.warnings?.[0]).toMatch(/no configuration in force/);
  });
});

describe('review of HAProxyTemplateConfig', () => {
  const configReq = (object: object): AdmissionRequest => ({
    uid: 'c',
    kind: { group: 'haproxy-haptic.org', version: 'v1alpha1', kind: 'HAProxyTemplateConfig' },
    resource: {
      group: 'haproxy-haptic.org',
      version: 'v1alpha1',
      resource: 'haproxytemplateconfigs',
    },
    namespace: 'haptic',
    operation: 'UPDATE',
    object: object as Record<string, unknown>,
  });
  const resource = (s: object) => ({
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyTemplateConfig',
    metadata: { namespace: 'haptic', name: 'haptic' },
    spec: s,
  });

  it('denies a schema error naming the field', async () => {
    const r = await review(
      deps(configOf(), new FakeDryRun()),
      configReq(resource({ ...spec(true), podSelector: {} })),
    );
    expect(r.verdict.allowed).toBe(false);
    expect(r.verdict.message).toMatch(/^HAProxyTemplateConfig haptic\/haptic: spec\.podSelector/);
  });

  it('renders, checks with haproxy -c and runs the tests; failing tests deny', async () => {
    const fake = new FakeDryRun();
    fake.runTests = () => Promise.resolve({ ok: false, reason: '1 of 3 fail (t: expected x)' });
    const r = await review(deps(configOf(), fake), configReq(resource(spec(true))));
    expect(fake.calls).toEqual(['render', 'validate+haproxy']);
    expect(r.verdict.message).toBe(
      'HAProxyTemplateConfig haptic/haptic: validation tests fail: 1 of 3 fail (t: expected x)',
    );
  });

  it('allows with a warning when the tests outlast the budget', async () => {
    const fake = new FakeDryRun();
    fake.runTests = () => new Promise(() => undefined);
    const d = { ...deps(configOf(), fake), testBudgetMs: 10 };
    const r = await review(d, configReq(resource(spec(true))));
    expect(r.verdict.allowed).toBe(true);
    expect(r.verdict.warnings).toEqual([
      'validation tests did not finish within 10 ms; run haptic validate to see them',
    ]);
  });
});
