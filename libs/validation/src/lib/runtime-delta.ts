import { createPrivateKey, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { diffConfigText, parseCrtList, type RuntimeChange } from '#haproxy-config';
import type { RenderedOutputs } from './outputs.js';
import type { ValidationProblem } from './problems.js';

/** What a render changes over the last validated one when all of it can be applied at runtime. */
export interface RuntimeDelta {
  readonly servers: readonly RuntimeChange[];
  /** Maps whose entries changed (each existed before). */
  readonly maps: readonly string[];
  /** Certificates changed or added. */
  readonly certs: readonly string[];
  /** crt-lists whose lines changed (each existed before). */
  readonly crtLists: readonly string[];
}

const changed = (
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): string[] => Object.keys(after).filter((k) => before[k] !== after[k]);

const sameNames = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b);
};

/**
 * The runtime-only delta from `before` to `after`, or undefined when anything needs a reload: a
 * structural configuration change, a map or crt-list added or removed, or a general file
 * changed (HAProxy reads those only at start). Certificates may change, come or go: the runtime
 * API loads them, and a certificate no crt-list or bind names is never loaded.
 */
export function runtimeDelta(
  before: RenderedOutputs,
  after: RenderedOutputs,
): RuntimeDelta | undefined {
  if (!sameNames(before.maps, after.maps) || !sameNames(before.crtLists, after.crtLists))
    return undefined;
  if (!sameNames(before.files, after.files) || changed(before.files, after.files).length > 0)
    return undefined;
  const diff =
    before.haproxyConfig === after.haproxyConfig
      ? { runtime: [], structural: [] }
      : diffConfigText(before.haproxyConfig, after.haproxyConfig);
  if (diff.structural.length > 0) return undefined;
  const certs = changed(before.sslCertificates, after.sslCertificates);
  // a PEM without a key (a CA bundle) is no runtime certificate: the whole check judges it
  if (certs.some((c) => !PEM_KEY.test(after.sslCertificates[c] ?? ''))) return undefined;
  return {
    servers: diff.runtime,
    maps: changed(before.maps, after.maps),
    certs,
    crtLists: changed(before.crtLists, after.crtLists),
  };
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** Map lines: `key value`, no control characters, a value on every line. */
function checkMap(name: string, text: string): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const at = { stage: 'structure' as const, output: `map:${name}`, line: i + 1 };
    if (CONTROL.test(line)) problems.push({ ...at, reason: 'control character in a map line' });
    else if (!/^\S+\s+\S/.test(line))
      problems.push({ ...at, reason: `map line "${line.slice(0, 80)}" has no value` });
  });
  return problems;
}

/** A server's new address, port and weight are what HAProxy's runtime takes. */
function checkServer(c: RuntimeChange): ValidationProblem[] {
  if (c.kind === 'server.del') return [];
  const name = `${c.backend}/${c.kind === 'server.add' ? c.spec.name : c.server}`;
  const { address, port, weight } = c.kind === 'server.add' ? c.spec : c;
  const at = { stage: 'structure' as const, output: 'haproxy.cfg' };
  const out: ValidationProblem[] = [];
  if (address !== undefined && isIP(address) === 0 && !HOSTNAME.test(address))
    out.push({
      ...at,
      reason: `server ${name}: address "${address.slice(0, 80)}" is no IP or host name`,
    });
  if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535))
    out.push({ ...at, reason: `server ${name}: port ${port} is not within 1-65535` });
  if (weight !== undefined && !(Number.isInteger(weight) && weight >= 0 && weight <= 256))
    out.push({ ...at, reason: `server ${name}: weight ${weight} is not within 0-256` });
  return out;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const PEM_KEY = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]+?-----END \1PRIVATE KEY-----/;

/** A certificate file: a certificate and its private key, both parsed, and the key matches. */
function checkCert(name: string, pem: string): ValidationProblem[] {
  const at = { stage: 'structure' as const, output: `cert:${name}` };
  const cert = PEM_CERT.exec(pem)?.[0];
  const key = PEM_KEY.exec(pem)?.[0];
  if (!cert) return [{ ...at, reason: 'no certificate in the file' }];
  if (!key) return [{ ...at, reason: 'no private key in the file' }];
  try {
    const x509 = new X509Certificate(cert);
    const k = createPrivateKey(key);
    if (!x509.checkPrivateKey(k))
      return [{ ...at, reason: 'the private key does not match the certificate' }];
    return [];
  } catch (e) {
    return [{ ...at, reason: `unreadable certificate or key: ${(e as Error).message}` }];
  }
}

/** crt-list lines name certificates of this render. */
function checkCrtList(name: string, text: string, outputs: RenderedOutputs): ValidationProblem[] {
  return parseCrtList(text)
    .filter((e) => !((e.file.split('/').pop() ?? '') in outputs.sslCertificates))
    .map((e) => ({
      stage: 'structure' as const,
      output: `crt-list:${name}`,
      line: e.line_number,
      reason: `names certificate ${e.file}, which this render does not hold`,
    }));
}

/**
 * Validates a runtime-only delta in its own terms (map lines, server addresses, certificates and
 * keys, crt-list lines): what the runtime API is about to be given, without `haproxy -c`.
 */
export function checkRuntimeDelta(
  delta: RuntimeDelta,
  outputs: RenderedOutputs,
): ValidationProblem[] {
  return [
    ...delta.servers.flatMap(checkServer),
    ...delta.maps.flatMap((m) => checkMap(m, outputs.maps[m] ?? '')),
    ...delta.certs.flatMap((c) => checkCert(c, outputs.sslCertificates[c] ?? '')),
    ...delta.crtLists.flatMap((l) => checkCrtList(l, outputs.crtLists[l] ?? '', outputs)),
  ];
}
