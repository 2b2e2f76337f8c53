import { X509Certificate } from 'node:crypto';
import { ContentMemo } from '#core';

/** The outputs of one render, as facts for metrics: sizes per kind and certificate expiries. */
export interface OutputShape {
  readonly haproxyConfig: string;
  readonly maps: Readonly<Record<string, string>>;
  readonly files: Readonly<Record<string, string>>;
  readonly sslCertificates: Readonly<Record<string, string>>;
  readonly crtLists: Readonly<Record<string, string>>;
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const total = (r: Readonly<Record<string, string>>): number =>
  Object.values(r).reduce((n, s) => n + bytes(s), 0);

/** Bytes per output kind (`haproxy.cfg`, `maps`, `files`, `certificates`, `crt-lists`). */
export function outputBytes(o: OutputShape): Record<string, number> {
  return {
    'haproxy.cfg': bytes(o.haproxyConfig),
    maps: total(o.maps),
    files: total(o.files),
    certificates: total(o.sslCertificates),
    'crt-lists': total(o.crtLists),
  };
}

const FIRST_CERT = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/;

/**
 * When the first certificate of each certificate output expires (Unix seconds); outputs without
 * a parseable certificate are left out.
 */
export function certificateExpiries(certs: Readonly<Record<string, string>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, pem] of Object.entries(certs)) {
    const block = FIRST_CERT.exec(pem)?.[0];
    if (!block) continue;
    const expiry = expiries.get(block, expiryOf);
    if (expiry !== undefined) out.set(name, expiry);
  }
  return out;
}

/** Each certificate is parsed once, not once per validated render. */
const expiries = new ContentMemo<number | undefined>();

function expiryOf(block: string): number | undefined {
  try {
    return Date.parse(new X509Certificate(block).validTo) / 1000;
  } catch {
    // Not a certificate this process can parse: no series rather than a wrong one.
    return undefined;
  }
}
