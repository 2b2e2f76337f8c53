import { describe, expect, it } from 'vitest';
import type { RenderedOutputs } from '#events';
import { servedByClass } from './ingress-class.js';
import { onlyRuntimeChanges } from './runtime-only.js';
import { fieldsWithControlCharacters } from './suspect-fields.js';

const cfg = (servers: string, extra = '') => `global
defaults
  mode http
frontend f
  bind :80
  default_backend b
backend b
  balance roundrobin
${servers}${extra}`;
const outputs = (haproxyConfig: string, maps: Record<string, string> = {}): RenderedOutputs => ({
  haproxyConfig,
  maps,
  files: {},
  sslCertificates: {},
  crtLists: {},
});

describe('onlyRuntimeChanges', () => {
  const base = outputs(cfg('  server s1 10.0.0.1:80\n'), { 'hosts.map': 'a b\n' });
  it('is true for server address changes and map entries', () => {
    expect(
      onlyRuntimeChanges(base, outputs(cfg('  server s1 10.0.0.2:80\n'), { 'hosts.map': 'c d\n' })),
    ).toBe(true);
  });
  it('is false for a structural line, a new map or a changed file', () => {
    expect(
      onlyRuntimeChanges(
        base,
        outputs(cfg('  server s1 10.0.0.1:80\n', '  timeout server 5s\n'), { 'hosts.map': '' }),
      ),
    ).toBe(false);
    expect(
      onlyRuntimeChanges(base, outputs(base.haproxyConfig, { 'hosts.map': '', 'x.map': '' })),
    ).toBe(false);
    expect(onlyRuntimeChanges(base, { ...base, files: { '503.http': 'x' } })).toBe(false);
  });
});

describe('fieldsWithControlCharacters', () => {
  it('names annotation keys with dots in brackets and list items by index', () => {
    const o = {
      metadata: {
        name: 'web',
        annotations: {
          'haproxy-haptic.org/timeout-server': '5s\nlua-load /tmp/x.lua',
          'kubectl.kubernetes.io/last-applied-configuration': '{}\n',
        },
        managedFields: [{ x: 'a\nb' }],
      },
      spec: { rules: [{ host: 'a\rb' }] },
    };
    expect(fieldsWithControlCharacters(o)).toEqual([
      "metadata.annotations['haproxy-haptic.org/timeout-server']",
      'spec.rules[0].host',
    ]);
  });
});

describe('servedByClass', () => {
  const ours = (name: string, isDefault = false) => ({
    metadata: {
      name,
      annotations: isDefault ? { 'ingressclass.kubernetes.io/is-default-class': 'true' } : {},
    },
    spec: { controller: 'me' },
  });
  const theirs = { metadata: { name: 'nginx' }, spec: { controller: 'nginx.org' } };
  const ing = (cls?: string, annotation?: string) => ({
    metadata: {
      name: 'i',
      annotations: annotation ? { 'kubernetes.io/ingress.class': annotation } : {},
    },
    spec: cls ? { ingressClassName: cls } : {},
  });
  it('follows the Ingress library: named class, annotation first, default class', () => {
    expect(servedByClass(ing('haptic'), [ours('haptic'), theirs], 'me')).toBe(true);
    expect(servedByClass(ing('nginx'), [ours('haptic'), theirs], 'me')).toBe(false);
    expect(servedByClass(ing('haptic', 'nginx'), [ours('haptic'), theirs], 'me')).toBe(false);
    expect(servedByClass(ing(), [ours('haptic'), theirs], 'me')).toBe(false);
    expect(servedByClass(ing(), [ours('haptic', true)], 'me')).toBe(true);
  });
});
