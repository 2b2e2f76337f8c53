import { readFile, rm } from 'node:fs/promises';
import { parseTemplateConfigText, type TemplateConfig } from '#core';
import { snapshotOf } from '#index';
import { compileTemplates, render, type CompiledTemplates } from '#render';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleLibrary, tempBase } from './library.js';
import { changedLineCount, nonRuntimeDifferences } from './server-lines.js';

// The assembled library through the render library as the controller runs it: with the
// deployed configuration as `previous` (stable slots) and with quarantine on.

type Endpoint = { ip: string; ready?: boolean };

const classes = [
  { metadata: { name: 'haptic' }, spec: { controller: 'haproxy-haptic.org/ingress-controller' } },
];
const service = {
  kind: 'Service',
  metadata: { name: 'echo', namespace: 'apps' },
  spec: { ports: [{ name: 'http', port: 8080 }] },
};
const ingress = (name: string, host: string, created: string, path = '/') => ({
  kind: 'Ingress',
  metadata: { name, namespace: 'apps', creationTimestamp: created },
  spec: {
    ingressClassName: 'haptic',
    rules: [
      {
        host,
        http: {
          paths: [
            {
              path,
              pathType: 'Prefix',
              backend: { service: { name: 'echo', port: { number: 8080 } } },
            },
          ],
        },
      },
    ],
  },
});
const slice = (eps: readonly Endpoint[]) => ({
  kind: 'EndpointSlice',
  metadata: { name: 'echo-1', namespace: 'apps', labels: { 'kubernetes.io/service-name': 'echo' } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080 }],
  endpoints: eps.map((e) => ({ addresses: [e.ip], conditions: { ready: e.ready ?? true } })),
});

describe('the Ingress library under the render library', () => {
  let base: string;
  let config: TemplateConfig;
  let compiled: CompiledTemplates;

  beforeAll(async () => {
    base = await tempBase();
    const parsed = parseTemplateConfigText(await readFile(await assembleLibrary(base), 'utf8'));
    if (!parsed.ok) throw new Error('the assembled library does not parse');
    config = parsed.config;
    const c = compileTemplates(config.spec);
    if (!c.ok) throw new Error(c.error.map((p) => p.message).join('; '));
    compiled = c.value;
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));

  const snapshot = (objects: Record<string, object[]>) =>
    snapshotOf(
      Object.fromEntries(
        Object.entries(config.spec.watchedResources).map(([k, v]) => [k, v.indexBy]),
      ),
      { ingressclasses: classes, services: [service], ...objects },
    );
  const renderCfg = (objects: Record<string, object[]>, previous?: string) => {
    const result = render(
      compiled,
      snapshot(objects),
      previous === undefined ? {} : { previous: { haproxyConfig: previous } },
    );
    if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('; '));
    return result;
  };

  it('keeps every endpoint on its deployed slot: one leaving changes exactly one line', () => {
    const ingresses = [ingress('web', 'a.example.com', '2024-01-01T00:00:00Z')];
    const eps = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map((ip) => ({ ip }));
    const first = renderCfg({ ingresses, endpointslices: [slice(eps)] }).outputs.haproxyConfig;
    const without2 = eps.filter((e) => e.ip !== '10.0.0.2');
    const second = renderCfg({ ingresses, endpointslices: [slice(without2)] }, first).outputs
      .haproxyConfig;
    expect(nonRuntimeDifferences(first, second)).toEqual([]);
    expect(changedLineCount(first, second)).toBe(1);
    expect(second).toMatch(/^ {2}server srv2 0\.0\.0\.0:1 weight 1 disabled$/m);
    // A newcomer takes the first free slot; the others stay where they are.
    const plus9 = [...without2, { ip: '10.0.0.9' }];
    const third = renderCfg({ ingresses, endpointslices: [slice(plus9)] }, second).outputs
      .haproxyConfig;
    expect(changedLineCount(second, third)).toBe(1);
    expect(third).toMatch(/^ {2}server srv2 10\.0\.0\.9:8080 weight 1$/m);
    expect(third).toMatch(/^ {2}server srv4 10\.0\.0\.4:8080 weight 1$/m);
  });

  it('does not shrink the slot count below the deployed one (no reload on scale-down)', () => {
    const ingresses = [ingress('web', 'a.example.com', '2024-01-01T00:00:00Z')];
    const ten = Array.from({ length: 10 }, (_, i) => ({ ip: `10.0.1.${i + 1}` }));
    const big = renderCfg({ ingresses, endpointslices: [slice(ten)] }).outputs.haproxyConfig;
    expect(big).toMatch(/^ {2}server srv16 /m);
    const small = renderCfg({ ingresses, endpointslices: [slice(ten.slice(0, 2))] }, big).outputs
      .haproxyConfig;
    expect(nonRuntimeDifferences(big, small)).toEqual([]);
    expect(small).toMatch(/^ {2}server srv16 0\.0\.0\.0:1 weight 1 disabled$/m);
  });

  it('quarantines the younger of two conflicting Ingresses and serves the rest', () => {
    const result = renderCfg({
      ingresses: [
        ingress('owner', 'shop.example.com', '2024-01-01T00:00:00Z', '/cart'),
        ingress('squatter', 'shop.example.com', '2024-02-01T00:00:00Z', '/cart/'),
        ingress('other', 'other.example.com', '2024-03-01T00:00:00Z'),
      ],
      endpointslices: [slice([{ ip: '10.0.0.1' }])],
    });
    expect(result.quarantined.map((q) => `${q.object.namespace}/${q.object.name}`)).toEqual([
      'apps/squatter',
    ]);
    expect(result.quarantined[0]?.problem.message).toContain(
      'already served by the older Ingress apps/owner',
    );
    expect(result.outputs.maps['prefix.map']).toBe(
      'shop.example.com/cart/ svc_apps_echo_8080\nother.example.com/ svc_apps_echo_8080\n',
    );
  });

  it('quarantines an Ingress with an invalid annotation and serves the rest', () => {
    const bad = ingress('bad', 'bad.example.com', '2024-01-01T00:00:00Z');
    const annotated = {
      ...bad,
      metadata: { ...bad.metadata, annotations: { 'haproxy-haptic.org/timeout-server': 'soon' } },
    };
    const result = renderCfg({
      ingresses: [annotated, ingress('good', 'good.example.com', '2024-01-02T00:00:00Z')],
      endpointslices: [slice([{ ip: '10.0.0.1' }])],
    });
    expect(result.quarantined.map((q) => q.object.name)).toEqual(['bad']);
    expect(result.outputs.maps['prefix.map']).toBe('good.example.com/ svc_apps_echo_8080\n');
    expect(result.outputs.haproxyConfig).not.toContain('ing_apps_bad');
  });
});
