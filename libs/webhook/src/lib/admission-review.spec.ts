import { describe, expect, it } from 'vitest';
import {
  admissionResponse,
  ingressAdmissionReview,
  MalformedReviewError,
  oneLine,
  parseAdmissionReview,
} from './admission-review.js';

const request = {
  uid: 'u-1',
  kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
  resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
  operation: 'CREATE',
  object: { metadata: { name: 'web' } },
};

describe('AdmissionReview v1', () => {
  it('reads a request and answers with its uid, allowed and warnings', () => {
    const r = parseAdmissionReview({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request,
    });
    expect(r.uid).toBe('u-1');
    expect(admissionResponse(r.uid, { allowed: true, warnings: ['w'] })).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u-1', allowed: true, warnings: ['w'] },
    });
  });

  it('puts a denial in status with message and code', () => {
    expect(admissionResponse('u-2', { allowed: false, message: 'no', code: 422 })).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: 'u-2',
        allowed: false,
        status: { message: 'no', code: 422, reason: 'BadRequest' },
      },
    });
  });

  it('escapes control characters in messages and warnings so a client prints them on one line', () => {
    const r = admissionResponse('u-3', { allowed: false, message: 'a: 5s\nlua-load x\x00' });
    expect(r).toMatchObject({ response: { status: { message: 'a: 5s\\nlua-load x\\x00' } } });
    expect(oneLine('x'.repeat(5000))).toHaveLength(2048);
  });

  it('refuses what is not a v1 review, naming the field', () => {
    const bad = (body: unknown) => () => parseAdmissionReview(body);
    expect(bad({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview' })).toThrow(
      /expected apiVersion admission.k8s.io\/v1/,
    );
    expect(
      bad({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { ...request, uid: '' },
      }),
    ).toThrow(MalformedReviewError);
    expect(
      bad({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { ...request, operation: 'PATCH' },
      }),
    ).toThrow('request.operation: unknown PATCH');
  });

  it('builds the body an API server sends for an Ingress, which it reads back', () => {
    const object = { metadata: { namespace: 'apps', name: 'web' } };
    const old = { metadata: { namespace: 'apps', name: 'web', generation: 1 } };
    const parsed = parseAdmissionReview(ingressAdmissionReview('u-9', 'UPDATE', object, old));
    expect(parsed).toMatchObject({
      uid: 'u-9',
      operation: 'UPDATE',
      namespace: 'apps',
      name: 'web',
      kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      resource: { resource: 'ingresses' },
      object,
      oldObject: old,
      dryRun: false,
    });
  });
});
