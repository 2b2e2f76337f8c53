import type { ConfigLine } from '#haproxy-config';
import type { RenderedOutputs } from './outputs.js';

/** Where outputs live on the HAProxy side (config.dataplane). */
export interface StorageDirs {
  readonly mapsDir: string;
  readonly sslCertsDir: string;
  readonly generalStorageDir: string;
}

export const DEFAULT_STORAGE_DIRS: StorageDirs = {
  mapsDir: '/etc/haproxy/maps',
  sslCertsDir: '/etc/haproxy/ssl',
  generalStorageDir: '/etc/haproxy/general',
};

/** A path haproxy.cfg (or a crt-list) makes HAProxy read. */
export interface FileReference {
  readonly line: number;
  readonly keyword: string;
  readonly path: string;
}

/** Keywords whose next word is a file or directory HAProxy reads while loading the config. */
const FILE_KEYWORDS: ReadonlySet<string> = new Set([
  'crt',
  'crt-list',
  'ca-file',
  'crl-file',
  'ca-verify-file',
  'ca-sign-file',
  'ca-base',
  'crt-base',
  'key-base',
  'server-state-file',
  'ssl-dh-param-file',
  'issuers-chain-path',
  'h1-case-adjust-file',
  'httpclient.ssl.ca-file',
  '51degrees-data-file',
  'wurfl-data-file',
  'deviceatlas-json-file',
  'server-state-base',
  '-f',
  // `http-request return` / `http-error`: the file is read at load time and served to clients.
  'file',
  'lf-file',
]);

/** In a 3.x `crt-store`, `load crt <f> key <f> ocsp <f> issuer <f> sctl <f>` names files. */
const LOAD_KEYWORDS: ReadonlySet<string> = new Set(['crt', 'key', 'ocsp', 'issuer', 'sctl']);

const MAP_CONVERTER = /\bmap(?:_[a-z0-9]+)*\(([^,)\s]+)/g;

/** Every file reference in haproxy.cfg: keyword arguments, `errorfile`, `map*()` converters. */
export function findFileReferences(lines: readonly ConfigLine[]): FileReference[] {
  const refs: FileReference[] = [];
  for (const l of lines) {
    const w = l.words;
    w.forEach((word, i) => {
      const next = w[i + 1];
      const names = FILE_KEYWORDS.has(word) || (w[0] === 'load' && LOAD_KEYWORDS.has(word));
      if (names && next !== undefined) refs.push({ line: l.line, keyword: word, path: next });
      if (!word.includes('map')) return;
      for (const m of word.matchAll(MAP_CONVERTER)) {
        if (m[1]) refs.push({ line: l.line, keyword: 'map', path: m[1] });
      }
    });
    if (w[0] === 'errorfile' && w[2] !== undefined)
      refs.push({ line: l.line, keyword: 'errorfile', path: w[2] });
  }
  return refs;
}

/** Certificate paths named by each line of a crt-list (its first word). */
export function crtListReferences(text: string): FileReference[] {
  const refs: FileReference[] = [];
  text.split('\n').forEach((raw, i) => {
    const path = raw.trim().split(/\s+/)[0];
    if (path && !path.startsWith('#')) refs.push({ line: i + 1, keyword: 'crt-list entry', path });
  });
  return refs;
}

const trimSlash = (d: string): string => (d.length > 1 ? d.replace(/\/+$/, '') : d);

/** Which output a path under a storage dir names, or 'dir' for the dir itself, or undefined. */
export function resolveStoragePath(
  path: string,
  dirs: StorageDirs,
  outputs: RenderedOutputs,
): { kind: 'output' | 'dir' | 'missing'; dir: string } | undefined {
  const candidates: [string, Readonly<Record<string, string>>[]][] = [
    [dirs.mapsDir, [outputs.maps]],
    [dirs.sslCertsDir, [outputs.sslCertificates]],
    // crt-lists are stored with the general files (that storage exists on every Dataplane API).
    [dirs.generalStorageDir, [outputs.files, outputs.crtLists]],
  ];
  // Longest directory first, so nested storage dirs resolve to the most specific one.
  candidates.sort((a, b) => b[0].length - a[0].length);
  for (const [rawDir, recs] of candidates) {
    const dir = trimSlash(rawDir);
    if (path === dir || path === `${dir}/`) return { kind: 'dir', dir };
    if (!path.startsWith(`${dir}/`)) continue;
    const name = path.slice(dir.length + 1);
    return { kind: recs.some((r) => Object.hasOwn(r, name)) ? 'output' : 'missing', dir };
  }
  return undefined;
}

/** True when a path climbs out of where it starts (`..` segment). */
export const climbs = (path: string): boolean => path.split('/').includes('..');

/** File names an output may have: storage names (no folders), never `..` or hidden. */
export const SAFE_OUTPUT_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
