// The self-signed default certificate (`haptic run --self-signed-certificate ns/name`): so that
// HAProxy's 443 answers before any TLS Secret exists, the controller keeps one kubernetes.io/tls
// Secret of its own, which the chart names as the library's default_certificate. It lives in a
// Secret rather than in memory so that both replicas and every restart serve the same
// certificate, and rather than in the chart so that `helm template` (GitOps) stays stable.
import { X509Certificate, webcrypto } from 'node:crypto';
import { KubeRestError, kubeRequest, seg, type KubeCredentials } from '#core';

/** The label that marks a Secret this controller made (and may renew); others are never touched. */
export const SELF_SIGNED_LABEL = 'haptic.haproxy-haptic.org/self-signed-certificate';

/** The certificate's subject: says what it is to anyone who inspects it in a browser. */
export const SELF_SIGNED_SUBJECT = 'CN=haptic default certificate, O=haptic';

const VALID_DAYS = 365;
/** A start-up within this many days of the end of validity renews the certificate. */
export const RENEW_WITHIN_DAYS = 30;
const DAY_MS = 86_400_000;

/** A PEM certificate and its PKCS#8 private key. */
export interface PemPair {
  readonly crt: string;
  readonly key: string;
}

/** "namespace/name" of the Secret. */
export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/** Reads "namespace/name"; throws RangeError naming the flag otherwise. */
export function parseSecretRef(text: string, flag = '--self-signed-certificate'): SecretRef {
  const m = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]{0,251}[a-z0-9])?)$/.exec(
    text,
  );
  if (!m) throw new RangeError(`${flag} must be namespace/name of a Secret, not ${text}`);
  return { namespace: m[1]!, name: m[3]! };
}

/** Makes a self-signed RSA-2048 server certificate valid from `now` for a year. */
export async function makeSelfSignedCertificate(now = new Date()): Promise<PemPair> {
  // tsyringe (under @peculiar/x509) needs the Reflect polyfill before it loads; the controller
  // has it already (Nest), the import makes this module stand alone. Both load only when used.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  // Node's webcrypto is the Web Crypto API (the DOM typing is not in this project's lib).
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const serial = Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)));
  serial[0] = serial[0]! & 0x7f; // a positive INTEGER
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: SELF_SIGNED_SUBJECT,
    notBefore: new Date(now.getTime() - 60_000), // a minute of clock skew
    notAfter: new Date(now.getTime() + VALID_DAYS * DAY_MS),
    keys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'haptic.invalid' }]),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    crt: cert.toString('pem') + '\n',
    key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') + '\n',
  };
}

interface SecretWire {
  readonly metadata?: {
    readonly labels?: Record<string, string>;
    readonly resourceVersion?: string;
  };
  readonly data?: Record<string, string>;
}

function secretBody(ref: SecretRef, pair: PemPair, resourceVersion?: string): object {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      labels: { [SELF_SIGNED_LABEL]: 'true', 'app.kubernetes.io/managed-by': 'haptic' },
      annotations: {
        'haptic.haproxy-haptic.org/description':
          'Self-signed certificate HAProxy serves when no TLS Secret matches; made and renewed ' +
          'by the haptic controller. Set the chart value controller.defaultCertificate to serve ' +
          'your own instead.',
      },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    data: { 'tls.crt': b64(pair.crt), 'tls.key': b64(pair.key) },
  };
}

/** Days until the end of the certificate's validity, or undefined when it cannot be read. */
function daysLeft(secret: SecretWire, now: Date): number | undefined {
  const crt = secret.data?.['tls.crt'];
  if (!crt) return undefined;
  try {
    const end = Date.parse(new X509Certificate(Buffer.from(crt, 'base64')).validTo);
    return (end - now.getTime()) / DAY_MS;
  } catch {
    return undefined;
  }
}

/**
 * Keeps the Secret: creates it when missing, renews it (only one made by haptic) when it ends
 * within RENEW_WITHIN_DAYS or cannot be read, leaves any other Secret of that name alone. Two
 * replicas racing settle on one (the loser's 409 means the other wrote it). Says what it did.
 */
export async function ensureSelfSignedCertificate(
  kc: KubeCredentials,
  ref: SecretRef,
  now = new Date(),
): Promise<string> {
  const path = `/api/v1/namespaces/${seg(ref.namespace)}/secrets`;
  const at = `Secret ${ref.namespace}/${ref.name}`;
  let existing: SecretWire | undefined;
  try {
    existing = await kubeRequest<SecretWire>(kc, {
      method: 'GET',
      path: `${path}/${seg(ref.name)}`,
    });
  } catch (e) {
    if (!(e instanceof KubeRestError && e.status === 404)) throw e;
  }
  try {
    if (!existing) {
      await kubeRequest(kc, {
        method: 'POST',
        path,
        body: secretBody(ref, await makeSelfSignedCertificate(now)),
      });
      return `${at} created with a new self-signed certificate`;
    }
    if (existing.metadata?.labels?.[SELF_SIGNED_LABEL] !== 'true')
      return `${at} exists and is not haptic's: served as it is`;
    const left = daysLeft(existing, now);
    if (left !== undefined && left > RENEW_WITHIN_DAYS)
      return `${at} kept (valid for ${Math.floor(left)} more days)`;
    const body = secretBody(
      ref,
      await makeSelfSignedCertificate(now),
      existing.metadata.resourceVersion,
    );
    await kubeRequest(kc, { method: 'PUT', path: `${path}/${seg(ref.name)}`, body });
    return `${at} renewed (${left === undefined ? 'unreadable' : `${Math.floor(left)} days left`})`;
  } catch (e) {
    if (e instanceof KubeRestError && e.status === 409)
      return `${at} written by another replica meanwhile: kept`;
    throw e;
  }
}
