import { describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { ing, ingresses, useAdmissionBed } from './admission-bed.js';
import type { KubeObject } from './types.js';

const bed = useAdmissionBed();
const { vwc } = bed;
const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(bed.sim.url, ...args);

// matchConditions (CEL, as the API server evaluates them) and webhooks reached through a Service.
describe('validating admission webhooks: match conditions and service references', () => {
  it('evaluates matchConditions (CEL): all true calls the webhook, any false skips it', async () => {
    const cls = (name: string, host: string, className?: string) => ({
      ...ing(name, host),
      ...(className ? { spec: { ingressClassName: className, rules: [{ host }] } } : {}),
    });
    await bed.sim.apply(
      vwc({
        matchConditions: [
          {
            name: 'haptic-class',
            expression:
              "has(object.spec.ingressClassName) && object.spec.ingressClassName == 'haptic'",
          },
          { name: 'create-only', expression: "request.operation == 'CREATE' && oldObject == null" },
          { name: 'ns', expression: "namespaceObject.metadata.name == 'default'" },
        ],
      }),
    );
    const other = await call('POST', ingresses, cls('other', 'deny.example.com', 'nginx'));
    expect(other.code).toBe(201);
    expect(bed.reviews).toHaveLength(0);
    const none = await call('POST', ingresses, cls('none', 'deny.example.com'));
    expect(none.code).toBe(201);
    expect(bed.reviews).toHaveLength(0);
    const ours = await call('POST', ingresses, cls('ours', 'deny.example.com', 'haptic'));
    expect(ours.code).toBe(403);
    expect(ours.body.message).toContain('host deny.example.com is not allowed');
    expect(bed.reviews).toHaveLength(1);
    const created = await call('POST', ingresses, cls('ours2', 'ok.example.com', 'haptic'));
    expect(created.code).toBe(201);
    expect(bed.reviews).toHaveLength(2);
    // An UPDATE fails the create-only condition: not called, even for a denied host.
    const update = {
      ...created.body,
      spec: { ingressClassName: 'haptic', rules: [{ host: 'deny.x' }] },
    };
    expect((await call('PUT', `${ingresses}/ours2`, update)).code).toBe(200);
    expect(bed.reviews).toHaveLength(2);
  });

  it('leaves an evaluation error to failurePolicy, and a false condition wins over an error', async () => {
    const erring = { name: 'missing-field', expression: "object.spec.nothere == 'x'" };
    await bed.sim.apply(vwc({ failurePolicy: 'Fail', matchConditions: [erring] }));
    const failed = await call('POST', ingresses, ing('a', 'ok.example.com'));
    expect(failed.code).toBe(500);
    expect(failed.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "vingress.haptic.test": failed to evaluate match conditions: .*nothere/,
    );
    expect(bed.reviews).toHaveLength(0);
    await bed.sim.apply(vwc({ failurePolicy: 'Ignore', matchConditions: [erring] }));
    expect((await call('POST', ingresses, ing('b', 'deny.example.com'))).code).toBe(201);
    const falseAndError = [erring, { name: 'never', expression: 'false' }];
    await bed.sim.apply(vwc({ failurePolicy: 'Fail', matchConditions: falseAndError }));
    expect((await call('POST', ingresses, ing('c', 'deny.example.com'))).code).toBe(201);
    // A result that is not a bool is an error too.
    await bed.sim.apply(
      vwc({ failurePolicy: 'Fail', matchConditions: [{ name: 's', expression: "'x'" }] }),
    );
    expect((await call('POST', ingresses, ing('d', 'ok.example.com'))).code).toBe(500);
    expect(bed.reviews).toHaveLength(0);
  });

  it('refuses matchConditions the API server would refuse: over 64, duplicate names, not compiling', async () => {
    const post = (matchConditions: unknown[]) =>
      call(
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        vwc({ matchConditions }),
      );
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    const tooMany = await post(many);
    expect(tooMany.code).toBe(422);
    expect(tooMany.body.message).toContain(
      'webhooks[0].matchConditions: Too many: 65: must have at most 64 items',
    );
    expect((await post(many.slice(0, 64))).code).toBe(201);
    await bed.sim.reset();
    const dup = await post([
      { name: 'a', expression: 'true' },
      { name: 'a', expression: 'true' },
    ]);
    expect(dup.code).toBe(422);
    expect(dup.body.message).toContain('webhooks[0].matchConditions[1].name: Duplicate value: "a"');
    const syntax = await post([{ name: 'a', expression: 'object ==' }]);
    expect(syntax.code).toBe(422);
    expect(syntax.body.message).toContain(
      'webhooks[0].matchConditions[0].expression: Invalid value',
    );
    // authorizer is not offered by kube-sim: refused as an undeclared reference, never ignored.
    for (const expression of [
      'params.x == 1',
      "authorizer.group('').resource('x').check('get').allowed()",
    ]) {
      const r = await post([{ name: 'a', expression }]);
      expect(r.code).toBe(422);
      expect(r.body.message).toContain('undeclared reference');
    }
    expect((await post([{ name: 'a', expression: '[1, 2].all(x, x > 0)' }])).code).toBe(201);
  });

  it('reaches a webhook named by service through the Service and its EndpointSlice, verifying <svc>.<ns>.svc', async () => {
    const port = Number(new URL(bed.hookUrl).port);
    await bed.sim.apply([
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'hook', namespace: 'default' },
        spec: { ports: [{ port: 443, targetPort: port }] },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'hook-1',
          namespace: 'default',
          labels: { 'kubernetes.io/service-name': 'hook' },
        },
        addressType: 'IPv4',
        endpoints: [
          { addresses: ['127.0.0.9'], conditions: { ready: false } },
          { addresses: ['127.0.0.1'], conditions: { ready: true } },
        ],
        ports: [{ port }],
      },
    ] as KubeObject[]);
    await bed.sim.apply(
      vwc({
        clientConfig: {
          service: { namespace: 'default', name: 'hook', path: '/validate' },
          caBundle: Buffer.from(bed.tls.cert).toString('base64'),
        },
      }),
    );
    const denied = await call('POST', ingresses, ing('svc', 'deny.example.com'));
    expect(denied.code).toBe(403);
    expect(denied.body.message).toContain(
      'admission webhook "vingress.haptic.test" denied the request',
    );
    await call('DELETE', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/hook-1');
    const none = await call('POST', ingresses, ing('svc2', 'ok.example.com'));
    expect(none.code).toBe(500);
    expect(none.body.message).toContain('no endpoints available for service "hook"');
  });

  it("resolves a named targetPort through the EndpointSlice port of the Service port's name", async () => {
    const port = Number(new URL(bed.hookUrl).port);
    await bed.sim.apply([
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'hook', namespace: 'default' },
        spec: { ports: [{ name: 'webhook', port: 9443, targetPort: 'https-hook' }] },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'hook-1',
          namespace: 'default',
          labels: { 'kubernetes.io/service-name': 'hook' },
        },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
        // The container port behind the name: not the Service port (9443, where nothing listens).
        ports: [{ name: 'webhook', port }],
      },
    ] as KubeObject[]);
    await bed.sim.apply(
      vwc({
        clientConfig: {
          service: { namespace: 'default', name: 'hook', path: '/validate', port: 9443 },
          caBundle: Buffer.from(bed.tls.cert).toString('base64'),
        },
      }),
    );
    const denied = await call('POST', ingresses, ing('named', 'deny.example.com'));
    expect(denied.code).toBe(403);
    expect(denied.body.message).toContain(
      'admission webhook "vingress.haptic.test" denied the request',
    );
    await bed.sim.apply(
      vwc({
        clientConfig: {
          service: { namespace: 'default', name: 'hook', path: '/validate', port: 443 },
          caBundle: Buffer.from(bed.tls.cert).toString('base64'),
        },
      }),
    );
    const noPort = await call('POST', ingresses, ing('named2', 'ok.example.com'));
    expect(noPort.code).toBe(500);
    expect(noPort.body.message).toContain('service "hook" has no port 443');
  });
});
