import { describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { ing, ingresses, useAdmissionBed } from './admission-bed.js';
import { generateCertificate } from './tls.js';

const bed = useAdmissionBed();
const { vwc } = bed;
const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(bed.sim.url, ...args);

describe('validating admission webhooks', () => {
  it('calls the webhook over HTTPS with AdmissionReview v1 and returns its denial as a real server words it', async () => {
    await bed.sim.apply(vwc({}));
    const allowed = await call('POST', ingresses, ing('a', 'ok.example.com'));
    expect(allowed.code).toBe(201);
    expect(allowed.warning).toContain('checked by the test webhook');
    expect(bed.reviews[0]).toMatchObject({
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
    expect(bed.reviews.at(-1).request.operation).toBe('UPDATE');
    expect(bed.reviews.at(-1).request.oldObject.spec.rules[0].host).toBe('ok.example.com');
  });

  it('honours objectSelector and namespaceSelector', async () => {
    await bed.sim.apply(
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
    await bed.sim.apply(
      vwc({
        clientConfig: {
          url: 'https://127.0.0.1:1/validate',
          caBundle: Buffer.from(bed.tls.cert).toString('base64'),
        },
      }),
    );
    const failed = await call('POST', ingresses, ing('a', 'ok.example.com'));
    expect(failed.code).toBe(500);
    expect(failed.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "vingress.haptic.test": failed to call webhook: Post "https:\/\/127.0.0.1:1\/validate"/,
    );
    await bed.sim.apply(
      vwc({
        failurePolicy: 'Ignore',
        clientConfig: { url: 'https://127.0.0.1:1/validate' },
      }),
    );
    expect((await call('POST', ingresses, ing('b', 'ok.example.com'))).code).toBe(201);
    bed.delayMs = 1500;
    await bed.sim.apply(vwc({ timeoutSeconds: 1 }));
    const slow = await call('POST', ingresses, ing('c', 'ok.example.com'));
    expect(slow.code).toBe(500);
    expect(slow.body.message).toContain('context deadline exceeded');
  });

  it('verifies the answer as a real server does: v1 AdmissionReview, the request uid echoed, the caBundle', async () => {
    await bed.sim.apply(vwc({}));
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
    await bed.sim.apply(
      vwc({
        clientConfig: {
          url: `${bed.hookUrl}/validate`,
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
    await bed.sim.apply(vwc({ sideEffects: 'Some' }));
    const dry = await call('POST', `${ingresses}?dryRun=All`, ing('d', 'ok.example.com'));
    expect(dry.code).toBe(400);
    expect(dry.body.message).toBe(
      'admission webhook "vingress.haptic.test" does not support dry run',
    );
    await bed.sim.apply(vwc({ sideEffects: 'None' }));
    const before = bed.reviews.length;
    expect((await call('POST', `${ingresses}?dryRun=All`, ing('d', 'ok.example.com'))).code).toBe(
      201,
    );
    expect(
      bed.reviews.slice(before).map((r: { request: { dryRun?: boolean } }) => r.request.dryRun),
    ).toEqual([true]);
  });

  it('keeps optimistic concurrency while writes await a webhook: one conditional winner, no lost merges', async () => {
    bed.delayMs = 20;
    await bed.sim.apply(vwc({}));
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
