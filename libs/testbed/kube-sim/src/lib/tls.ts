import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A self-signed certificate (it is its own CA: use `cert` as the caBundle) and its key, PEM. */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

/**
 * Generates a self-signed ECDSA P-256 certificate for the given DNS names and IP addresses with the
 * `openssl` command (part of every Debian/Ubuntu image). Valid for 30 days.
 */
export async function generateCertificate(
  opts: { commonName?: string; dnsNames?: readonly string[]; ipAddresses?: readonly string[] } = {},
): Promise<TlsMaterial> {
  const dir = await mkdtemp(join(tmpdir(), 'kube-sim-tls-'));
  const san = [
    ...(opts.dnsNames ?? ['localhost']).map((n) => `DNS:${n}`),
    ...(opts.ipAddresses ?? ['127.0.0.1']).map((ip) => `IP:${ip}`),
  ].join(',');
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '30',
      '-subj',
      `/CN=${opts.commonName ?? 'kube-sim'}`,
      '-addext',
      `subjectAltName=${san}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,digitalSignature,keyCertSign',
      '-addext',
      'extendedKeyUsage=serverAuth,clientAuth',
    ]);
    return {
      cert: await readFile(join(dir, 'cert.pem'), 'utf8'),
      key: await readFile(join(dir, 'key.pem'), 'utf8'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
