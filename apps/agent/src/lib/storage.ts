import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../agent.errors.js';
import { writeAtomic } from './config-file.js';

const NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** A storage file name must be a plain file name (no path, no `..`). */
export function checkStorageName(name: string): string {
  if (!NAME.test(name) || name.includes('..')) {
    throw new ApiError(400, `invalid storage name "${name}": must be a plain file name`);
  }
  return name;
}

/** One storage directory (maps, ssl, general). */
export class StorageDir {
  constructor(readonly dir: string) {}

  path(name: string): string {
    return join(this.dir, checkStorageName(name));
  }
  exists(name: string): boolean {
    return existsSync(this.path(name));
  }
  /** The file's content, or the API's 404. */
  read(name: string): Buffer {
    const p = this.path(name);
    if (!existsSync(p)) throw new ApiError(404, `file ${name} not found`);
    return readFileSync(p);
  }
  write(name: string, content: Buffer | string): void {
    writeAtomic(this.path(name), content);
  }
  remove(name: string): void {
    const p = this.path(name);
    if (!existsSync(p)) throw new ApiError(404, `file ${name} not found`);
    rmSync(p);
  }
  /** File names, sorted; the API's 404 when the storage directory itself is gone. */
  names(): string[] {
    if (!existsSync(this.dir)) throw new ApiError(404, `storage directory ${this.dir} not found`);
    return readdirSync(this.dir)
      .filter((n) => NAME.test(n) && !n.includes('.tmp-') && statSync(join(this.dir, n)).isFile())
      .sort();
  }
  /** The common file description (`map`, `general_file`, `ssl_crt_list_file`). */
  describe(name: string): {
    storage_name: string;
    file: string;
    size: number;
    description: string;
  } {
    const p = this.path(name);
    return { storage_name: name, file: p, size: statSync(p).size, description: '' };
  }
}

/** True when the content holds at least one PEM certificate (crt-lists and certs share ssl/). */
export function isCertificate(content: Buffer | string): boolean {
  return content.toString().includes('-----BEGIN CERTIFICATE-----');
}

/** The `ssl_certificate` description of a PEM file (first certificate of the chain). */
export function describeCertificate(
  name: string,
  file: string,
  pem: Buffer,
): Record<string, unknown> {
  const text = pem.toString();
  const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0];
  if (!first) throw new ApiError(400, `${name}: no PEM certificate found`);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(first);
  } catch (e) {
    throw new ApiError(
      400,
      `${name}: invalid certificate: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const san = cert.subjectAltName ?? '';
  const dns = san
    .split(', ')
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4));
  const ips = san
    .split(', ')
    .filter((s) => s.startsWith('IP Address:'))
    .map((s) => s.slice(11));
  return {
    storage_name: name,
    file,
    description: '',
    size: pem.length,
    subject: cert.subject.replace(/\n/g, ', '),
    issuers: cert.issuer.replace(/\n/g, ', '),
    serial: cert.serialNumber,
    not_before: new Date(cert.validFrom).toISOString(),
    not_after: new Date(cert.validTo).toISOString(),
    sha1_finger_print: cert.fingerprint.replace(/:/g, ''),
    sha256_finger_print: cert.fingerprint256.replace(/:/g, ''),
    algorithm: cert.publicKey.asymmetricKeyType?.toUpperCase() ?? '',
    subject_alternative_names: san,
    ...(dns.length ? { domains: dns.join(',') } : {}),
    ...(ips.length ? { ip_addresses: ips.join(',') } : {}),
  };
}

export { crtListLine, parseCrtList, type CrtListEntry } from '#haproxy-config';
