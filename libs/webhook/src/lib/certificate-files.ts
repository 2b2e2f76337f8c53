import { readFile } from 'node:fs/promises';

/** A certificate chain and its key, PEM. */
export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

/** Where the serving certificate comes from: two files (a mounted Secret's tls.crt and tls.key). */
export interface CertificateSource {
  readonly certFile: string;
  readonly keyFile: string;
}

/** A certificate source that cannot be read, with the file and the reason. */
export class CertificateUnreadableError extends Error {
  override readonly name = 'CertificateUnreadableError';
  readonly code = 'HAPTIC_WEBHOOK_CERTIFICATE';
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----/;
const PEM_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/** Reads the pair (throws CertificateUnreadableError naming the file that is missing or not PEM). */
export async function readKeyPair(src: CertificateSource): Promise<KeyPair> {
  const read = async (file: string, what: string, pem: RegExp) => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new CertificateUnreadableError(`webhook ${what} ${file}: ${(e as Error).message}`);
    }
    if (!pem.test(text))
      throw new CertificateUnreadableError(`webhook ${what} ${file}: no PEM ${what} in it`);
    return text;
  };
  const [cert, key] = await Promise.all([
    read(src.certFile, 'certificate', PEM_CERT),
    read(src.keyFile, 'key', PEM_KEY),
  ]);
  return { cert, key };
}

/**
 * Re-reads the pair every `intervalMs` and calls `onChange` when either file's content changed
 * (a rotated Secret volume swaps both at once) — polling, because the kubelet replaces the
 * files through a symlink swap that file watches miss. A pair that cannot be read is reported to
 * `onError` and the last good one stays in use. Returns a stop function.
 */
export function followKeyPair(
  src: CertificateSource,
  initial: KeyPair,
  intervalMs: number,
  onChange: (pair: KeyPair) => void,
  onError: (e: Error) => void,
): () => void {
  let last = initial;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    readKeyPair(src)
      .then((pair) => {
        if (pair.cert === last.cert && pair.key === last.key) return;
        onChange(pair); // throws for a key that does not match the certificate: retried next time
        last = pair;
      })
      .catch((e: unknown) => onError(e as Error))
      .finally(() => (busy = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
