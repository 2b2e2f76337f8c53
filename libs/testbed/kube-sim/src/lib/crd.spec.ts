/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- tests read API JSON loosely */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { KubeSim } from './kube-sim.js';

const crdDir = fileURLToPath(new URL('../../../../../test/fixtures/gateway-api/', import.meta.url));
let sim: KubeSim;

const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(sim.url, ...args);

const routes = '/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes';
const route = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name },
  spec,
});

beforeAll(async () => {
  sim = await KubeSim.start();
  for (const n of ['gatewayclasses', 'gateways', 'httproutes'])
    await sim.applyFile(`${crdDir}gateway.networking.k8s.io_${n}.yaml`);
});
afterAll(async () => sim.stop());

describe('CRDs (Gateway API)', () => {
  it('serves the group, versions and resources at once, with Established status', async () => {
    const group = (await call('GET', '/apis/gateway.networking.k8s.io')).body;
    expect(group.versions.map((v: any) => v.version)).toEqual(['v1', 'v1beta1']);
    expect(group.preferredVersion.version).toBe('v1');
    const res = (await call('GET', '/apis/gateway.networking.k8s.io/v1')).body.resources.map(
      (r: any) => r.name,
    );
    expect(res).toEqual(
      expect.arrayContaining(['httproutes', 'httproutes/status', 'gateways', 'gatewayclasses']),
    );
    const crd = (
      await call(
        'GET',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/httproutes.gateway.networking.k8s.io',
      )
    ).body;
    expect(crd.status.conditions.find((c: any) => c.type === 'Established').status).toBe('True');
  });

  it('applies schema defaults and validates values', async () => {
    const ok = await call(
      'POST',
      routes,
      route('ok', {
        parentRefs: [{ name: 'gw' }],
        rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }],
      }),
    );
    expect(ok.code).toBe(201);
    expect(ok.body.spec.rules[0].backendRefs[0].weight).toBe(1);
    expect(ok.body.spec.rules[0].matches).toEqual([{ path: { type: 'PathPrefix', value: '/' } }]);
    const bad = await call(
      'POST',
      routes,
      route('bad', {
        hostnames: ['Not_A_Host!'],
        rules: [{ backendRefs: [{ name: 'svc', port: 70000 }] }],
      }),
    );
    expect(bad.code).toBe(422);
    expect(bad.body.reason).toBe('Invalid');
    expect(bad.body.message).toMatch(
      /^HTTPRoute\.gateway\.networking\.k8s\.io "bad" is invalid: \[/,
    );
    expect(bad.body.message).toContain(
      `spec.hostnames[0]: Invalid value: "Not_A_Host!": spec.hostnames[0] in body should match`,
    );
    expect(bad.body.message).toContain(
      'spec.rules[0].backendRefs[0].port: Invalid value: 70000: spec.rules[0].backendRefs[0].port in body should be less than or equal to 65535',
    );
    expect(bad.body.details.causes.length).toBe(2);
  });

  it('handles unknown fields per fieldValidation: Strict refuses, Warn prunes and warns, Ignore prunes', async () => {
    const body = route('u', { parentRefs: [{ name: 'gw', colour: 'red' }], extra: true });
    const strict = await call('POST', `${routes}?fieldValidation=Strict`, body);
    expect(strict.code).toBe(400);
    expect(strict.body.message).toBe(
      'HTTPRoute in version "v1" cannot be handled as a HTTPRoute: strict decoding error: unknown field "spec.parentRefs[0].colour", unknown field "spec.extra"',
    );
    const warn = await call('POST', routes, body);
    expect(warn.code).toBe(201);
    expect(warn.warning).toContain('unknown field \\"spec.extra\\"');
    expect(warn.body.spec.extra).toBeUndefined();
    expect(warn.body.spec.parentRefs[0].colour).toBeUndefined();
    const ignore = await call('POST', `${routes}?fieldValidation=Ignore`, {
      ...body,
      metadata: { name: 'u2' },
    });
    expect(ignore.code).toBe(201);
    expect(ignore.warning).toBeNull();
  });

  it('keeps status apart, bumps generation on spec only and serves every version from one storage', async () => {
    const gws = '/apis/gateway.networking.k8s.io/v1/namespaces/default/gateways';
    await call('POST', gws, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'gw' },
      spec: { gatewayClassName: 'c', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
    });
    const st = await call('PUT', `${gws}/gw/status`, {
      ...(await call('GET', `${gws}/gw`)).body,
      status: {
        addresses: [{ type: 'IPAddress', value: '10.0.0.1' }],
        conditions: [
          {
            type: 'Programmed',
            status: 'True',
            reason: 'Programmed',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            observedGeneration: 1,
          },
        ],
      },
    });
    expect(st.code).toBe(200);
    expect(st.body.metadata.generation).toBe(1);
    const table = await call(
      'GET',
      gws,
      undefined,
      undefined,
      'application/json;as=Table;v=v1;g=meta.k8s.io',
    );
    expect(table.body.columnDefinitions.map((c: any) => c.name)).toEqual([
      'Name',
      'Class',
      'Address',
      'Programmed',
      'Age',
    ]);
    expect(table.body.rows[0].cells.slice(0, 4)).toEqual(['gw', 'c', '10.0.0.1', 'True']);
    const beta = await call(
      'GET',
      '/apis/gateway.networking.k8s.io/v1beta1/namespaces/default/gateways/gw',
    );
    expect(beta.body.apiVersion).toBe('gateway.networking.k8s.io/v1beta1');
    const spec = await call(
      'PATCH',
      `${gws}/gw`,
      { spec: { gatewayClassName: 'd' } },
      'application/merge-patch+json',
    );
    expect(spec.body.metadata.generation).toBe(2);
    expect(spec.body.status.addresses[0].value).toBe('10.0.0.1');
    expect(
      (
        await call(
          'PATCH',
          `${gws}/gw`,
          { spec: { gatewayClassName: 'e' } },
          'application/strategic-merge-patch+json',
        )
      ).code,
    ).toBe(415);
  });

  it('warns that CEL rules are not evaluated, and stops serving a deleted CRD', async () => {
    const crd = await call(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gatewayclasses.gateway.networking.k8s.io',
    );
    const again = await call(
      'PUT',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gatewayclasses.gateway.networking.k8s.io',
      {
        ...crd.body,
        metadata: { ...crd.body.metadata, labels: { touched: 'yes' } },
      },
    );
    expect(again.warning).toMatch(/does not evaluate x-kubernetes-validations \(CEL\)/);
    await call(
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/httproutes.gateway.networking.k8s.io',
    );
    expect((await call('GET', routes)).code).toBe(404);
    expect(
      (await call('GET', '/apis/gateway.networking.k8s.io/v1')).body.resources.map(
        (r: any) => r.name,
      ),
    ).not.toContain('httproutes');
  });

  it('refuses a CRD with a conversion webhook with a clear error', async () => {
    const r = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'things', kind: 'Thing' },
        conversion: { strategy: 'Webhook' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object' } },
          },
        ],
      },
    });
    expect(r.code).toBe(501);
    expect(r.body.message).toContain('kube-sim does not call conversion webhooks');
  });
});
