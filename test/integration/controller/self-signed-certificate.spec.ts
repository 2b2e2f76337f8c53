import { KubeConfig } from '@kubernetes/client-node';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import {
  RENEW_WITHIN_DAYS,
  SELF_SIGNED_LABEL,
  ensureSelfSignedCertificate,
  parseSecretRef,
} from '../../../apps/controller/src/run/self-signed-certificate.js';

// The self-signed default certificate against kube-sim over HTTPS with a bearer token, through
// client-node's KubeConfig as `haptic run` uses it: the Secret is created once, kept, renewed
// near its end, shared by racing replicas, and someone else's Secret is never touched.
const NS = 'haptic';
const DAY = 86_400_000;

describe('the self-signed default certificate Secret', () => {
  let sim: KubeSim;
  let kc: KubeConfig;

  beforeAll(async () => {
    sim = await KubeSim.start({ port: 0, tls: true });
    await sim.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
  });
  afterAll(async () => {
    await sim?.stop();
  });

  const secret = (name: string) => sim.get('v1', 'Secret', NS, name);
  const pem = (s: KubeObject | undefined, key: string) =>
    Buffer.from((s as unknown as { data: Record<string, string> }).data[key]!, 'base64').toString();

  it('is created when missing: a TLS Secret whose key matches a year-long server certificate', async () => {
    const said = await ensureSelfSignedCertificate(kc, parseSecretRef(`${NS}/fresh-tls`));
    expect(said).toBe(`Secret ${NS}/fresh-tls created with a new self-signed certificate`);
    const s = secret('fresh-tls')!;
    expect(s['type']).toBe('kubernetes.io/tls');
    expect(s.metadata.labels?.[SELF_SIGNED_LABEL]).toBe('true');
    const cert = new X509Certificate(pem(s, 'tls.crt'));
    expect(cert.subject).toBe('CN=haptic default certificate\nO=haptic');
    expect(cert.ca).toBe(false);
    expect(cert.checkPrivateKey(createPrivateKey(pem(s, 'tls.key')))).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true); // self-signed
    const days = (Date.parse(cert.validTo) - Date.now()) / DAY;
    expect(days).toBeGreaterThan(364);
    expect(days).toBeLessThan(366);
  });

  it('is kept as it is on the next start, and renewed on a start within the renewal window', async () => {
    const ref = parseSecretRef(`${NS}/fresh-tls`);
    const before = pem(secret('fresh-tls'), 'tls.crt');
    expect(await ensureSelfSignedCertificate(kc, ref)).toMatch(
      / kept \(valid for 36[45] more days\)$/,
    );
    expect(pem(secret('fresh-tls'), 'tls.crt')).toBe(before);
    const later = new Date(Date.now() + (365 - RENEW_WITHIN_DAYS + 2) * DAY);
    expect(await ensureSelfSignedCertificate(kc, ref, later)).toMatch(
      / renewed \(2[78] days left\)$/,
    );
    const renewed = new X509Certificate(pem(secret('fresh-tls'), 'tls.crt'));
    expect(renewed.toString()).not.toBe(before);
    expect(Date.parse(renewed.validTo)).toBeGreaterThan(later.getTime() + 364 * DAY);
  });

  it('never touches a Secret of that name that haptic did not make, even one about to end', async () => {
    const theirs = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { namespace: NS, name: 'theirs-tls' },
      data: {
        'tls.crt': Buffer.from('not even a certificate').toString('base64'),
        'tls.key': Buffer.from('nor a key').toString('base64'),
      },
    };
    await sim.apply(theirs);
    expect(await ensureSelfSignedCertificate(kc, parseSecretRef(`${NS}/theirs-tls`))).toBe(
      `Secret ${NS}/theirs-tls exists and is not haptic's: served as it is`,
    );
    expect(pem(secret('theirs-tls'), 'tls.crt')).toBe('not even a certificate');
  });

  it('two replicas starting together leave one certificate, and neither fails', async () => {
    const ref = parseSecretRef(`${NS}/raced-tls`);
    const said = await Promise.all([
      ensureSelfSignedCertificate(kc, ref),
      ensureSelfSignedCertificate(kc, ref),
    ]);
    expect(said).toContain(`Secret ${NS}/raced-tls created with a new self-signed certificate`);
    const s = secret('raced-tls');
    const cert = new X509Certificate(pem(s, 'tls.crt'));
    expect(cert.checkPrivateKey(createPrivateKey(pem(s, 'tls.key')))).toBe(true);
  });

  it('refuses a flag value that is not namespace/name', () => {
    expect(() => parseSecretRef('just-a-name')).toThrow(
      '--self-signed-certificate must be namespace/name of a Secret, not just-a-name',
    );
    expect(() => parseSecretRef('Bad/Name')).toThrow(RangeError);
  });

  it('reports an API server refusal to the caller (which logs it and goes on)', async () => {
    const other = new KubeConfig();
    other.loadFromString(kc.exportConfig().replace(sim.token!, 'revoked'));
    await expect(
      ensureSelfSignedCertificate(other, parseSecretRef(`${NS}/never-tls`)),
    ).rejects.toThrow(/401/);
    expect(secret('never-tls')).toBeUndefined();
  });
});
