/* eslint-disable @typescript-eslint/no-unsafe-argument -- rendered manifests are untyped YAML; the assertions check their shape */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { chartDir, find, root, runHelm, template } from './helm.js';

const work = mkdtempSync(join(tmpdir(), 'haptic-chart-'));
afterAll(() => execFileSync('rm', ['-rf', work]));

/** `haptic <args>` through bin/haptic.js (the build). */
function haptic(args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [join(root, 'bin/haptic.js'), ...args], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { code: r.status ?? 1, out: r.stdout + r.stderr };
}

/** Every metric name the code registers (`name: 'haptic_…'` or a gauge helper's first argument). */
function registeredMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts'))
        for (const m of readFileSync(p, 'utf8').matchAll(/'(haptic_[a-z_]+)'/g)) names.add(m[1]!);
    }
  };
  for (const d of ['apps', 'libs']) walk(join(root, d));
  return names;
}

/** Metric names an expression uses (histogram series map to their metric). */
const metricsIn = (expr: string) =>
  [...expr.matchAll(/\b(haptic_[a-z_]+)/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ''));

describe('values.schema.json', () => {
  const bad: [string, string[], RegExp][] = [
    [
      'a service type the chart does not offer',
      ['haproxy.service.type=ClusterIP'],
      /haproxy\/service\/type/,
    ],
    [
      'a replica count that is not a number',
      ['controller.replicaCount=two'],
      /controller\/replicaCount/,
    ],
    ['a port out of range', ['haproxy.ports.http=70000'], /haproxy\/ports\/http/],
    [
      'a traffic policy Kubernetes does not know',
      ['haproxy.service.externalTrafficPolicy=local'],
      /haproxy\/service\/externalTrafficPolicy/,
    ],
    [
      'a PROXY protocol source that is not an address or CIDR',
      ['haproxy.proxyProtocol.trustedCidrs[0]=10.0.0.0/8 or all'],
      /haproxy\/proxyProtocol\/trustedCidrs\/0/,
    ],
    [
      'a default certificate that is not namespace/name',
      ['controller.defaultCertificate=wildcard-tls'],
      /controller\/defaultCertificate/,
    ],
    ['an unknown failure policy', ['webhook.failurePolicy=Sometimes'], /webhook\/failurePolicy/],
    ['a webhook timeout above 30 s', ['webhook.timeoutSeconds=31'], /webhook\/timeoutSeconds/],
    ['an unknown Dataplane mode', ['haproxy.dataplane.mode=sidecar'], /haproxy\/dataplane\/mode/],
    ['a password with a space', ['credentials.password=a b'], /credentials\/password/],
    [
      'a duration without a unit',
      ['controller.leaderElection.leaseDuration=15'],
      /leaderElection\/leaseDuration/,
    ],
    ['an unknown top-level value', ['replicas=2'], /additional properties 'replicas'/],
    ['a misspelt nested value', ['haproxy.replicas=3'], /additional properties 'replicas'/],
    ['an empty podSelector', ['controller.config.podSelector.matchLabels=null'], /podSelector/],
    [
      'a library the chart does not hold',
      ['controller.config.library=gateway'],
      /controller\/config\/library/,
    ],
  ];
  it.each(bad)('refuses %s', (_what, sets, field) => {
    const r = runHelm(['template', 'edge', chartDir, ...sets.flatMap((s) => ['--set', s])]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(field);
  });

  it('accepts the documented test-bed values', () => {
    const r = runHelm([
      'template',
      'edge',
      chartDir,
      '--set',
      'haproxy.ports.http=8080',
      '--set',
      'haproxy.ports.https=8443',
      // helm template has no cluster to keep a generated password in: one is named.
      '--set',
      'credentials.password=test-bed',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('the rendered HAProxyTemplateConfig', () => {
  it("is valid against the chart's CRD schema (generated from the config classes)", () => {
    const crd = parse(readFileSync(join(chartDir, 'crds/haproxytemplateconfigs.yaml'), 'utf8')) as {
      spec: { versions: { name: string; schema: { openAPIV3Schema: object } }[] };
    };
    const schema = crd.spec.versions.find((v) => v.name === 'v1alpha1')!.schema.openAPIV3Schema;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    for (const values of [
      {},
      { 'controller.config.validationTests': true, 'haproxy.ports.http': 8080 },
    ]) {
      const cfg = find(template(values), 'HAProxyTemplateConfig', 'edge-haptic');
      expect(validate(cfg), JSON.stringify(validate.errors)).toBe(true);
    }
    const broken = structuredClone(find(template(), 'HAProxyTemplateConfig', 'edge-haptic'));
    broken.spec.dataplane.port = 'five';
    expect(validate(broken)).toBe(false);
  });

  it('installs the CRD from crds/ (helm template leaves it out unless asked)', () => {
    const kinds = (ms: { kind: string }[]) => ms.map((m) => m.kind);
    expect(kinds(template())).not.toContain('CustomResourceDefinition');
    const crds = template({}, { extra: ['--include-crds'] }).filter(
      (m) => m.kind === 'CustomResourceDefinition',
    );
    expect(crds.map((m) => m.metadata.name)).toEqual(['haproxytemplateconfigs.haproxy-haptic.org']);
  });

  it('passes haptic config check', () => {
    const file = join(work, 'config.yaml');
    writeFileSync(file, stringify(find(template(), 'HAProxyTemplateConfig', 'edge-haptic')));
    const r = haptic(['config', 'check', '-f', file]);
    expect(r.out).toContain('valid: haptic/edge-haptic: 5 watched resources');
    expect(r.code).toBe(0);
  });

  it('passes every embedded validation test of the library with haptic validate', () => {
    const file = join(work, 'config-tests.yaml');
    const cfg = find(
      template({ 'controller.config.validationTests': true }),
      'HAProxyTemplateConfig',
      'edge-haptic',
    );
    writeFileSync(file, stringify(cfg));
    const r = haptic(['validate', '-f', file, '-o', 'json']);
    const report = JSON.parse(r.out.slice(r.out.indexOf('{'))) as {
      passed: boolean;
      totals: { tests: number; failedTests: number };
    };
    // `_global` holds fixtures shared by the tests, not a test.
    expect(report.totals.tests).toBe(
      Object.keys(cfg.spec.validationTests).filter((n) => !n.startsWith('_')).length,
    );
    expect(report.totals.tests).toBeGreaterThan(50);
    expect(report.totals.failedTests).toBe(0);
    expect(r.code).toBe(0);
  }, 600_000);

  it('carries the library exactly as scripts/assemble-library.mjs assembles it', () => {
    const out = join(work, 'assembled.yaml');
    execFileSync(process.execPath, [join(root, 'scripts/assemble-library.mjs'), '--out', out], {
      encoding: 'utf8',
    });
    const assembled = parse(readFileSync(out, 'utf8')) as { spec: Record<string, unknown> };
    // With the webhook off, the library is carried as it is.
    const spec = find(
      template({ 'controller.config.validationTests': true, 'webhook.enabled': false }),
      'HAProxyTemplateConfig',
      'edge-haptic',
    ).spec;
    expect(spec.haproxyConfig).toEqual(assembled.spec['haproxyConfig']);
    expect(spec.maps).toEqual(assembled.spec['maps']);
    expect(spec.files).toEqual(assembled.spec['files']);
    expect(spec.watchedResources).toEqual(assembled.spec['watchedResources']);
    const { 'global-900-chart-hard-stop-after': hardStop, ...snippets } = spec.templateSnippets;
    expect(snippets).toEqual(assembled.spec['templateSnippets']);
    expect(hardStop.template).toBe('\n  hard-stop-after 45s');
    expect(Object.keys(spec.validationTests).sort()).toEqual(
      Object.keys(assembled.spec['validationTests'] as object).sort(),
    );
    // With the webhook on (the default), the chart opts the library's ingresses in, and nothing
    // else changes.
    const withWebhook = find(template({}), 'HAProxyTemplateConfig', 'edge-haptic').spec;
    const { ingresses, ...others } = withWebhook.watchedResources;
    expect(ingresses).toEqual({
      ...(assembled.spec['watchedResources'] as Record<string, object>)['ingresses'],
      enableValidationWebhook: true,
    });
    const { ingresses: _plain, ...assembledOthers } = assembled.spec['watchedResources'] as Record<
      string,
      object
    >;
    expect(others).toEqual(assembledOthers);
  });
});

describe('the ingress-nginx library (controller.config.library: ingress-nginx)', () => {
  const values = { 'controller.config.library': 'ingress-nginx' };

  it("serves an IngressClass nginx with ingress-nginx's controller name unless told otherwise", () => {
    const ms = template(values);
    const ic = find(ms, 'IngressClass', 'nginx');
    expect(ic.spec.controller).toBe('k8s.io/ingress-nginx');
    const cfg = find(ms, 'HAProxyTemplateConfig', 'edge-haptic');
    expect(cfg.spec.templatingSettings.extraContext.controller_name).toBe('k8s.io/ingress-nginx');
    expect(cfg.spec.templatingSettings.extraContext.ssl_redirect).toBe(true);
    const named = template({ ...values, 'ingressClass.name': 'legacy' });
    expect(find(named, 'IngressClass', 'legacy').spec.controller).toBe('k8s.io/ingress-nginx');
    // the other libraries keep the per-release name
    expect(find(template(), 'IngressClass', 'edge-haptic').spec.controller).toMatch(
      /^haproxy-haptic\.org\//,
    );
  });

  it('passes every embedded validation test of the library with haptic validate', () => {
    const file = join(work, 'config-nginx-tests.yaml');
    const cfg = find(
      template({ ...values, 'controller.config.validationTests': true }),
      'HAProxyTemplateConfig',
      'edge-haptic',
    );
    writeFileSync(file, stringify(cfg));
    const r = haptic(['validate', '-f', file, '-o', 'json']);
    const report = JSON.parse(r.out.slice(r.out.indexOf('{'))) as {
      totals: { tests: number; failedTests: number };
    };
    expect(report.totals.tests).toBe(
      Object.keys(cfg.spec.validationTests).filter((n) => !n.startsWith('_')).length,
    );
    expect(report.totals.tests).toBeGreaterThan(30);
    expect(report.totals.failedTests).toBe(0);
    expect(r.code).toBe(0);
  }, 600_000);
});

describe('monitoring', () => {
  const ms = template({
    'metrics.prometheusRule.enabled': true,
    'metrics.dashboard.enabled': true,
    'metrics.serviceMonitor.enabled': true,
  });

  it('ships alert rules that promtool accepts', () => {
    const rule = find(ms, 'PrometheusRule', 'edge-haptic-controller');
    const file = join(work, 'rules.yaml');
    writeFileSync(file, stringify(rule.spec));
    const r = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toMatch(/SUCCESS: 6 rules found/);
    expect(r.status).toBe(0);
  });

  it('names in its rules and dashboard only metrics the controller exports', () => {
    const known = registeredMetrics();
    expect(known.size).toBeGreaterThan(5);
    const rules = (
      find(ms, 'PrometheusRule', 'edge-haptic-controller').spec.groups[0].rules as {
        expr: string;
      }[]
    ).map((r) => r.expr);
    const dashboard = JSON.parse(
      find(ms, 'ConfigMap', 'edge-haptic-dashboard').data['haptic.json'],
    ) as { panels: { targets: { expr: string }[] }[] };
    const exprs = [...rules, ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr))];
    const used = new Set(exprs.flatMap(metricsIn));
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((m) => !known.has(m))).toEqual([]);
    expect(metricsIn('rate(haptic_no_such_metric_total[5m])').filter((m) => !known.has(m))).toEqual(
      ['haptic_no_such_metric_total'],
    );
  });

  it('scrapes the controller metrics port', () => {
    const sm = find(ms, 'ServiceMonitor', 'edge-haptic-controller');
    expect(sm.spec.endpoints[0].port).toBe('metrics');
  });
});
