import { generateCertificate, type KubeObject } from '#testbed/kube-sim';
import type { Stack } from '#testbed/stack';

const INFRA = 'gateway-conformance-infra';

/** A self-signed kubernetes.io/tls Secret, as the upstream suite generates them at start. */
async function tlsSecret(
  namespace: string,
  name: string,
  dnsNames: readonly string[],
): Promise<KubeObject> {
  const tls = await generateCertificate({ dnsNames: [...dnsNames] });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { namespace, name },
    data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
  };
}

/** The Secrets the upstream suite creates before its tests (the base fixture names them). */
export const suiteSecrets = () =>
  Promise.all([
    tlsSecret(INFRA, 'tls-validity-checks-certificate', [
      '*',
      '*.org',
      '*.wildcard.org',
      'example.org',
      'second-example.org',
    ]),
    tlsSecret('gateway-conformance-web-backend', 'certificate', ['*']),
  ]);

/** As upstream: HTTPS requests trust the server certificate read from its Secret. */
export async function serverCertificate(stack: Stack): Promise<string> {
  const s = await stack.get<{ data?: Record<string, string> }>(
    `/api/v1/namespaces/${INFRA}/secrets/tls-validity-checks-certificate`,
  );
  const crt = s?.data?.['tls.crt'];
  if (!crt) throw new Error('Secret tls-validity-checks-certificate has no tls.crt');
  return Buffer.from(crt, 'base64').toString('utf8');
}
