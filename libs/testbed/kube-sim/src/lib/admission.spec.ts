/* eslint-disable @typescript-eslint/no-explicit-any -- tests read API JSON loosely */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { KubeSim } from './kube-sim.js';
import type { KubeObject } from './types.js';
import { generateCertificate, type TlsMaterial } from './tls.js';

let sim: KubeSim;
let tls: TlsMaterial;
let hook: Server;
let hookUrl: string;
const reviews: any[] = [];
let delayMs = 0;

const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(sim.url, ...args);

const ingresses = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
const ing = (name: string, host: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, labels },
  spec: { rules: [{ host }] },
});

function vwc(webhook: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'haptic' },
    webhooks: [
      {
        name: 'vingress.haptic.test',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        clientConfig: {
          url: `${hookUrl}/validate`,
          caBundle: Buffer.from(tls.cert).toString('base64'),
        },
        rules: [
          {
            operations: ['CREATE', 'UPDATE'],
            apiGroups: ['networking.k8s.io'],
            apiVersions: ['v1'],
            resources: ['ingresses'],
          },
        ],
        ...webhook,
      },
    ],
  };
}

beforeAll(async () => {
  tls = await generateCertificate({
    dnsNames: ['localhost', 'hook.default.svc'],
    ipAddresses: ['127.0.0.1'],
  });
  hook = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const review = JSON.parse(body);
      reviews.push(review);
      const host: string = review.request.object?.spec?.rules?.[0]?.host ?? '';
      const deny = host.startsWith('deny');
      const response = {
        uid: host.startsWith('wrong-uid') ? 'not-the-request' : review.request.uid,
        allowed: !deny,
        ...(deny
          ? { status: { code: 403, message: `host ${host} is not allowed` } }
          : { warnings: ['checked by the test webhook'] }),
      };
      setTimeout(
        () =>
          res.end(
            JSON.stringify({
              apiVersion: host.startsWith('v1beta1')
                ? 'admission.k8s.io/v1beta1'
                : 'admission.k8s.io/v1',
              kind: 'AdmissionReview',
              response,
            }),
          ),
        delayMs,
      );
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `https://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  sim = await KubeSim.start();
});
afterAll(async () => {
  await sim.stop();
  hook.closeAllConnections();
  await new Promise((r) => hook.close(r));
});
beforeEach(async () => {
  await sim.reset();
  reviews.length = 0;
  delayMs = 0;
});

describe('validating admission webhooks', () => {
  it('calls the webhook over HTTPS with AdmissionReview v1 and returns its denial as a real server words it', async () => {
    await sim.apply(vwc({}));
    const allowed = await call('POST', ingresses, ing('a', 'ok.example.com'));
    expect(allowed.code).toBe(201);
    expect(allowed.warning).toContain('checked by the test webhook');
    expect(reviews[0]).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        operation: 'CREATE',
        namespace: 'default',
        name: 'a',
        kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
        resource: { resource: 'ingresses' },
      },
    });
    const denied = await call('POST', ingresses, ing('b', 'deny.example.com'));
    expect(denied.code).toBe(403);
    expect(denied.body.message).toBe(
      'admission webhook "vingress.haptic.test" denied the request: host deny.example.com is not allowed',
    );
    expect((await call('GET', `${ingresses}/b`)).code).toBe(404);
    const update = await call(
      'PATCH',
      `${ingresses}/a`,
      { spec: { rules: [{ host: 'deny.example.com' }] } },
      'application/merge-patch+json',
    );
    expect(update.code).toBe(403);
    expect(reviews.at(-1).request.operation).toBe('UPDATE');
    expect(reviews.at(-1).request.oldObject.spec.rules[0].host).toBe('ok.example.com');
  });

  it('honours objectSelector and namespaceSelector', async () => {
    await sim.apply(
      vwc({
        objectSelector: { matchLabels: { check: 'yes' } },
        namespaceSelector: {
          matchExpressions: [
            { key: 'kubernetes.io/metadata.name', operator: 'In', values: ['default'] },
          ],
        },
      }),
    );
    expect((await call('POST', ingresses, ing('skip', 'deny.example.com'))).code).toBe(201);
    expect(
      (await call('POST', ingresses, ing('check', 'deny.example.com', { check: 'yes' }))).code,
    ).toBe(403);
    expect(
      (
        await call(
          'POST',
          '/apis/networking.k8s.io/v1/namespaces/kube-system/ingresses',
          ing('other-ns', 'deny.example.com', { check: 'yes' }),
        )
      ).code,
    ).toBe(201);
  });

  it('respects failurePolicy and timeoutSeconds', async () => {
    await sim.apply(
      vwc({
        clientConfig: {
          url: 'https://127.0.0.1:1/validate',
          caBundle: Buffer.from(tls.cert).toString('base64'),
        },
      }),
    );
    const failed = await call('POST', ingresses, ing('a', 'ok.example.com'));
    expect(failed.code).toBe(500);
    expect(failed.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "vingress.haptic.test": failed to call webhook: Post "https:\/\/127.0.0.1:1\/validate"/,
    );
    await sim.apply(
      vwc({
        failurePolicy: 'Ignore',
        clientConfig: { url: 'https://127.0.0.1:1/validate' },
      }),
    );
    expect((await call('POST', ingresses, ing('b', 'ok.example.com'))).code).toBe(201);
    delayMs = 1500;
    await sim.apply(vwc({ timeoutSeconds: 1 }));
    const slow = await call('POST', ingresses, ing('c', 'ok.example.com'));
    expect(slow.code).toBe(500);
    expect(slow.body.message).toContain('context deadline exceeded');
  });

  it('verifies the answer as a real server does: v1 AdmissionReview, the request uid echoed, the caBundle', async () => {
    await sim.apply(vwc({}));
    const wrongUid = await call('POST', ingresses, ing('u', 'wrong-uid.example.com'));
    expect(wrongUid.code).toBe(500);
    expect(wrongUid.body.message).toMatch(
      /failed calling webhook "vingress.haptic.test": received invalid webhook response: expected response.uid="[0-9a-f-]{36}", got "not-the-request"$/,
    );
    const oldVersion = await call('POST', ingresses, ing('v', 'v1beta1.example.com'));
    expect(oldVersion.code).toBe(500);
    expect(oldVersion.body.message).toContain(
      'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview',
    );
    const other = await generateCertificate({ commonName: 'other-ca' });
    await sim.apply(
      vwc({
        clientConfig: {
          url: `${hookUrl}/validate`,
          caBundle: Buffer.from(other.cert).toString('base64'),
        },
      }),
    );
    const untrusted = await call('POST', ingresses, ing('w', 'ok.example.com'));
    expect(untrusted.code).toBe(500);
    expect(untrusted.body.message).toMatch(
      /failed calling webhook "vingress.haptic.test": failed to call webhook/,
    );
  });

  it('refuses a dry run for a webhook with side effects, and calls one without', async () => {
    await sim.apply(vwc({ sideEffects: 'Some' }));
    const dry = await call('POST', `${ingresses}?dryRun=All`, ing('d', 'ok.example.com'));
    expect(dry.code).toBe(400);
    expect(dry.body.message).toBe(
      'admission webhook "vingress.haptic.test" does not support dry run',
    );
    await sim.apply(vwc({ sideEffects: 'None' }));
    const before = reviews.length;
    expect((await call('POST', `${ingresses}?dryRun=All`, ing('d', 'ok.example.com'))).code).toBe(
      201,
    );
    expect(
      reviews.slice(before).map((r: { request: { dryRun?: boolean } }) => r.request.dryRun),
    ).toEqual([true]);
  });

  it('evaluates matchConditions (CEL): all true calls the webhook, any false skips it', async () => {
    const cls = (name: string, host: string, className?: string) => ({
      ...ing(name, host),
      ...(className ? { spec: { ingressClassName: className, rules: [{ host }] } } : {}),
    });
    await sim.apply(
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
    expect(reviews).toHaveLength(0);
    const none = await call('POST', ingresses, cls('none', 'deny.example.com'));
    expect(none.code).toBe(201);
    expect(reviews).toHaveLength(0);
    const ours = await call('POST', ingresses, cls('ours', 'deny.example.com', 'haptic'));
    expect(ours.code).toBe(403);
    expect(ours.body.message).toContain('host deny.example.com is not allowed');
    expect(reviews).toHaveLength(1);
    const created = await call('POST', ingresses, cls('ours2', 'ok.example.com', 'haptic'));
    expect(created.code).toBe(201);
    expect(reviews).toHaveLength(2);
    // An UPDATE fails the create-only condition: not called, even for a denied host.
    const update = {
      ...created.body,
      spec: { ingressClassName: 'haptic', rules: [{ host: 'deny.x' }] },
    };
    expect((await call('PUT', `${ingresses}/ours2`, update)).code).toBe(200);
    expect(reviews).toHaveLength(2);
  });

  it('leaves an evaluation error to failurePolicy, and a false condition wins over an error', async () => {
    const erring = { name: 'missing-field', expression: "object.spec.nothere == 'x'" };
    await sim.apply(vwc({ failurePolicy: 'Fail', matchConditions: [erring] }));
    const failed = await call('POST', ingresses, ing('a', 'ok.example.com'));
    expect(failed.code).toBe(500);
    expect(failed.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "vingress.haptic.test": failed to evaluate match conditions: .*nothere/,
    );
    expect(reviews).toHaveLength(0);
    await sim.apply(vwc({ failurePolicy: 'Ignore', matchConditions: [erring] }));
    expect((await call('POST', ingresses, ing('b', 'deny.example.com'))).code).toBe(201);
    const falseAndError = [erring, { name: 'never', expression: 'false' }];
    await sim.apply(vwc({ failurePolicy: 'Fail', matchConditions: falseAndError }));
    expect((await call('POST', ingresses, ing('c', 'deny.example.com'))).code).toBe(201);
    // A result that is not a bool is an error too.
    await sim.apply(
      vwc({ failurePolicy: 'Fail', matchConditions: [{ name: 's', expression: "'x'" }] }),
    );
    expect((await call('POST', ingresses, ing('d', 'ok.example.com'))).code).toBe(500);
    expect(reviews).toHaveLength(0);
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
    await sim.reset();
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
    const port = Number(new URL(hookUrl).port);
    await sim.apply([
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
    await sim.apply(
      vwc({
        clientConfig: {
          service: { namespace: 'default', name: 'hook', path: '/validate' },
          caBundle: Buffer.from(tls.cert).toString('base64'),
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
    const port = Number(new URL(hookUrl).port);
    await sim.apply([
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
    await sim.apply(
      vwc({
        clientConfig: {
          service: { namespace: 'default', name: 'hook', path: '/validate', port: 9443 },
          caBundle: Buffer.from(tls.cert).toString('base64'),
        },
      }),
    );
    const denied = await call('POST', ingresses, ing('named', 'deny.example.com'));
    expect(denied.code).toBe(403);
    expect(denied.body.message).toContain(
      'admission webhook "vingress.haptic.test" denied the request',
    );
    await sim.apply(
      vwc({
        clientConfig: {
          service: { namespace: 'default', name: 'hook', path: '/validate', port: 443 },
          caBundle: Buffer.from(tls.cert).toString('base64'),
        },
      }),
    );
    const noPort = await call('POST', ingresses, ing('named2', 'ok.example.com'));
    expect(noPort.code).toBe(500);
    expect(noPort.body.message).toContain('service "hook" has no port 443');
  });

  it('keeps optimistic concurrency while writes await a webhook: one conditional winner, no lost merges', async () => {
    delayMs = 20;
    await sim.apply(vwc({}));
    const created = (await call('POST', ingresses, ing('race', 'a.example.com'))).body;
    const puts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('PUT', `${ingresses}/race`, {
          ...created,
          spec: { rules: [{ host: `h${i}.example.com` }] },
        }),
      ),
    );
    expect(puts.filter((p) => p.code === 200)).toHaveLength(1);
    expect(puts.filter((p) => p.code === 409)).toHaveLength(7);
    const merges = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(
          'PATCH',
          `${ingresses}/race`,
          {
            metadata: { labels: { [`l${i}`]: 'x' } },
            spec: { rules: [{ host: `m${i}.example.com` }] },
          },
          'application/merge-patch+json',
        ),
      ),
    );
    expect(merges.every((m) => m.code === 200)).toBe(true);
    const final = (await call('GET', `${ingresses}/race`)).body;
    expect(Object.keys(final.metadata.labels as object)).toHaveLength(8);
  });
});
