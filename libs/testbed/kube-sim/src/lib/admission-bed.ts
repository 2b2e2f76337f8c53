/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- the test webhook reads AdmissionReview JSON loosely */
// The bed of kube-sim's admission tests (admission.spec.ts, admission-conditions.spec.ts): a
// test webhook over HTTPS (denies hosts starting "deny", answers a wrong uid for "wrong-uid",
// v1beta1 for "v1beta1", after `delayMs`), kube-sim reset before each test, and builders.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { KubeSim } from './kube-sim.js';
import { generateCertificate, type TlsMaterial } from './tls.js';
import type { KubeObject } from './types.js';

/** What the tests of one file share; set by the hooks `useAdmissionBed` registers. */
export interface AdmissionBed {
  sim: KubeSim;
  tls: TlsMaterial;
  hookUrl: string;
  /** Every AdmissionReview the test webhook received since the test began. */
  readonly reviews: any[];
  /** How long the test webhook waits before it answers. */
  delayMs: number;
  /** A ValidatingWebhookConfiguration of one webhook on Ingresses, at the test webhook. */
  readonly vwc: (webhook: Record<string, unknown>) => KubeObject;
}

export const ingresses = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';

/** An Ingress with one host. */
export const ing = (name: string, host: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, labels },
  spec: { rules: [{ host }] },
});

function answer(review: any): { body: string } {
  const host: string = review.request.object?.spec?.rules?.[0]?.host ?? '';
  const deny = host.startsWith('deny');
  const response = {
    uid: host.startsWith('wrong-uid') ? 'not-the-request' : review.request.uid,
    allowed: !deny,
    ...(deny
      ? { status: { code: 403, message: `host ${host} is not allowed` } }
      : { warnings: ['checked by the test webhook'] }),
  };
  const apiVersion = host.startsWith('v1beta1')
    ? 'admission.k8s.io/v1beta1'
    : 'admission.k8s.io/v1';
  return { body: JSON.stringify({ apiVersion, kind: 'AdmissionReview', response }) };
}

/** Registers the file's hooks (start, stop, reset before each test); returns the shared bed. */
export function useAdmissionBed(): AdmissionBed {
  let hook: Server;
  const bed = {
    reviews: [] as any[],
    delayMs: 0,
    vwc: (webhook: Record<string, unknown>): KubeObject => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'haptic' },
      webhooks: [
        {
          name: 'vingress.haptic.test',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: {
            url: `${bed.hookUrl}/validate`,
            caBundle: Buffer.from(bed.tls.cert).toString('base64'),
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
    }),
  } as Partial<AdmissionBed> as AdmissionBed;
  beforeAll(async () => {
    bed.tls = await generateCertificate({
      dnsNames: ['localhost', 'hook.default.svc'],
      ipAddresses: ['127.0.0.1'],
    });
    hook = createServer({ cert: bed.tls.cert, key: bed.tls.key }, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const review = JSON.parse(body);
        bed.reviews.push(review);
        setTimeout(() => res.end(answer(review).body), bed.delayMs);
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    bed.hookUrl = `https://127.0.0.1:${(hook.address() as AddressInfo).port}`;
    bed.sim = await KubeSim.start();
  });
  afterAll(async () => {
    await bed.sim.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });
  beforeEach(async () => {
    await bed.sim.reset();
    bed.reviews.length = 0;
    bed.delayMs = 0;
  });
  return bed;
}
