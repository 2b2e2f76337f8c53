import { X509Certificate, createPrivateKey } from 'node:crypto';
import { ContentMemo } from '#core';

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/g;

/**
 * Why a registered certificate file would make HAProxy refuse the whole configuration, or
 * undefined when it is usable: no certificate, a certificate or key that does not parse, or a key
 * that does not belong to the first certificate. Checked at render, so the Secret it came from is
 * quarantined instead of the configuration failing `haproxy -c` for everyone.
 */
export function certificateProblem(pem: string): string | undefined {
  return checked.get(pem, check);
}

/** Every render checks the same certificates again: each PEM is parsed once. */
const checked = new ContentMemo<string | undefined>();

function check(pem: string): string | undefined {
  const blocks = [...pem.matchAll(BLOCK)].map((m) => ({ type: m[1] ?? '', text: m[0] }));
  const certs = blocks.filter((b) => b.type === 'CERTIFICATE');
  const keys = blocks.filter((b) => b.type.endsWith('PRIVATE KEY'));
  const [first] = certs;
  if (!first) return 'holds no PEM certificate';
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(first.text);
    for (const c of certs.slice(1)) new X509Certificate(c.text);
  } catch {
    return 'holds a certificate that does not parse';
  }
  if (keys.length > 1) return 'holds more than one private key';
  const [key] = keys;
  if (!key) return undefined;
  try {
    return leaf.checkPrivateKey(createPrivateKey(key.text))
      ? undefined
      : 'holds a private key that does not match its certificate';
  } catch {
    return 'holds a private key that does not parse';
  }
}
