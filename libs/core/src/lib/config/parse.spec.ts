import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { durationMs } from './duration.js';
import { fieldsOf } from './decorators.js';
import { parseTemplateConfig, parseTemplateConfigText } from './parse.js';
import { TemplateConfigSpec } from './spec.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../../test/fixtures/config/${name}`, import.meta.url), 'utf8');

const bare = {
  credentialsSecretRef: { name: 'creds' },
  podSelector: { matchLabels: { app: 'haproxy' } },
  watchedResources: {
    ingresses: {
      apiVersion: 'networking.k8s.io/v1',
      resources: 'ingresses',
      indexBy: ['metadata.namespace'],
    },
  },
  haproxyConfig: { template: 'global\n' },
};

describe('parseTemplateConfig', () => {
  it('accepts a whole resource and fills every default', () => {
    const r = parseTemplateConfigText(fixture('minimal.yaml'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const s = r.config.spec;
    expect(r.config.source).toEqual({ name: 'haptic', namespace: 'haptic' });
    expect(s.controller.reconcile.debounce).toBe('50ms');
    expect(durationMs(s.controller.reconcile.maxDelay)).toBe(1000);
    expect(s.controller.leaderElection).toMatchObject({
      enabled: true,
      leaseDuration: '15s',
      renewDeadline: '10s',
      retryPeriod: '2s',
    });
    expect(s.dataplane).toMatchObject({
      port: 5555,
      scheme: 'http',
      minDeploymentInterval: '500ms',
      maxParallel: 10,
    });
    expect(s.watchedResources['ingresses']?.store).toBe('full');
    expect(s.watchedResourcesIgnoreFields).toEqual(['metadata.managedFields']);
    expect(s.logging.level).toBe('info');
  });

  it('accepts a bare spec as JSON', () => {
    const r = parseTemplateConfigText(JSON.stringify(bare));
    expect(r.ok).toBe(true);
  });

  it('returns a deeply readonly (frozen) object', () => {
    const r = parseTemplateConfig(bare);
    if (!r.ok) throw new Error('expected ok');
    expect(Object.isFrozen(r.config.spec.controller.reconcile)).toBe(true);
    expect(() => {
      (r.config.spec.dataplane as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('names every one of five different mistakes by path', () => {
    const r = parseTemplateConfigText(fixture('five-mistakes.yaml'));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.fromEntries(r.problems.map((p) => [p.path, p.reason]))).toEqual({
      'spec.credentialsSecretRef': 'is required',
      'spec.haproxyConfig': 'is required',
      'spec.controller.reconcile.debounce':
        'not a valid duration (write it like 100ms, 2s, 1m or 1m30s)',
      'spec.watchedResources.ingresses.indexBy[0]': 'not a valid path (it is empty)',
      'spec.watchedResources.ingresses.store': 'must be one of: full, on-demand',
    });
  });

  it('reports unknown fields, bad selectors, bad paths and bad test references', () => {
    const r = parseTemplateConfig({
      ...bare,
      podSelector: { matchLabels: {} },
      watchedResources: {
        'bad-name': {
          apiVersion: 'v1',
          resources: 'services',
          indexBy: ['$.metadata.name'],
          labelSelector: 'a in (b',
        },
      },
      maps: { 'hosts.map': { templat: 'x' } },
      validationTests: {
        t: { fixtures: { nope: [] }, assertions: [{ type: 'contains', target: 'weird' }] },
      },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'spec.podSelector.matchLabels',
        'spec.watchedResources.bad-name',
        'spec.watchedResources.bad-name.indexBy[0]',
        'spec.watchedResources.bad-name.labelSelector',
        "spec.maps['hosts.map'].templat",
        "spec.maps['hosts.map'].template",
        'spec.validationTests.t.fixtures.nope',
        'spec.validationTests.t.assertions[0].pattern',
        'spec.validationTests.t.assertions[0].target',
      ]),
    );
  });

  it('refuses the wrong kind and unreadable text without throwing', () => {
    const wrongKind = parseTemplateConfigText('apiVersion: v1\nkind: ConfigMap\nspec: {}\n');
    expect(wrongKind.ok).toBe(false);
    const notYaml = parseTemplateConfigText('spec: [unclosed');
    expect(notYaml.ok).toBe(false);
    if (!notYaml.ok) expect(notYaml.problems[0]?.reason).toMatch(/not valid YAML/);
  });

  it('documents every field in one line', () => {
    const seen = new Set<unknown>();
    const walk = (type: new () => object): void => {
      if (seen.has(type)) return;
      seen.add(type);
      for (const f of fieldsOf(type)) {
        expect(f.doc.length, `${type.name}.${f.name}`).toBeGreaterThan(5);
        expect(f.doc).not.toMatch(/\n/);
        if (f.shape.kind !== 'value') walk(f.shape.type());
      }
    };
    walk(TemplateConfigSpec);
    expect(seen.size).toBeGreaterThan(8);
  });
});
