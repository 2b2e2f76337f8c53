import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its key (PEM). */
export interface KeyPair {
  readonly crt: string;
  readonly key: string;
}

/** The corpus's certificates: valid ones, and valid ones whose subject fields are hostile. */
export interface Pki {
  readonly good: KeyPair;
  readonly other: KeyPair;
  /** Certificates whose CN / SAN carry hostile text (OpenSSL accepts them). */
  readonly hostileFields: readonly { readonly id: string; readonly pair: KeyPair }[];
}

const HOSTILE_SUBJECTS: readonly [string, string][] = [
  ['cn-quotes-semicolon', '/CN=a"b;c#d e\\\\f'],
  ['cn-directive-words', '/CN=lua-load x.lua'],
  ['cn-look-alike', '/CN=\u212aelvin.example.com'],
  ['cn-very-long', `/CN=${'x'.repeat(64)}/O=${'y'.repeat(64)}`],
];

/** Creates the corpus's certificates with openssl (EC keys: fast). */
export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'haptic-hostile-pki-'));
  const make = (name: string, subj: string, san: string): KeyPair => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.crt`,
        '-days',
        '3',
        '-utf8',
        '-subj',
        subj,
        '-addext',
        `subjectAltName=${san}`,
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    return {
      crt: readFileSync(join(dir, `${name}.crt`), 'utf8'),
      key: readFileSync(join(dir, `${name}.key`), 'utf8'),
    };
  };
  try {
    return {
      good: make('good', '/CN=good.example.com', 'DNS:good.example.com'),
      other: make('other', '/CN=other.example.com', 'DNS:other.example.com'),
      hostileFields: HOSTILE_SUBJECTS.map(([id, subj], i) => ({
        id,
        pair: make(`h${i}`, subj, 'DNS:x;y.example.com,DNS:a b.example.com'),
      })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
