import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RenderedOutputs } from './outputs.js';
import { SAFE_OUTPUT_NAME, type StorageDirs } from './paths.js';

/** A throw-away directory holding one render laid out as HAProxy will read it. */
export interface CheckTree {
  readonly root: string;
  readonly configPath: string;
  /** Writes another config beside haproxy.cfg (HAProxy-side paths rewritten); gives its path. */
  readonly writeConfig: (name: string, text: string) => Promise<string>;
  /** Turns paths of this tree in checker output back into the HAProxy-side paths. */
  readonly toLogical: (text: string) => string;
  /** Which output a tree path is (for `parsing [file:line]` messages), if any. */
  readonly outputOf: (path: string) => string | undefined;
  readonly cleanup: () => Promise<void>;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const trimSlash = (d: string): string => (d.length > 1 ? d.replace(/\/+$/, '') : d);

/** Rewrites storage-dir prefixes (whole path words only) from one set of dirs to another. */
function prefixRewriter(from: readonly string[], to: readonly string[]): (text: string) => string {
  const order = from
    .map((d, i) => [d, to[i] ?? d] as const)
    .sort((a, b) => b[0].length - a[0].length);
  if (order.length === 0) return (t) => t;
  const re = new RegExp(
    `(^|[\\s,("'=<])(${order.map(([d]) => escapeRe(d)).join('|')})(?=/|$|[\\s,)"'>])`,
    'gm',
  );
  const table = new Map(order);
  return (text) =>
    text.replace(re, (m: string, pre: string, dir: string, at: number, all: string) =>
      // A relative dir (`ssl`) may also be a keyword: only `ssl/...` is a path.
      !dir.startsWith('/') && all[at + m.length] !== '/' ? m : `${pre}${table.get(dir) ?? dir}`,
    );
}

async function put(root: string, sub: string, name: string, text: string): Promise<void> {
  // Names are checked by the structural step; this guard keeps the writer safe on its own.
  if (!SAFE_OUTPUT_NAME.test(name)) throw new Error(`unsafe output name ${JSON.stringify(name)}`);
  const path = join(root, sub, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, { mode: 0o600 });
}

/**
 * Writes haproxy.cfg and every map, file, certificate and crt-list into a fresh temp dir, each
 * storage dir mapped to a sub-folder; paths in haproxy.cfg and crt-lists are rewritten to match.
 * Rewriting keeps line numbers, so checker lines map one-to-one to rendered lines.
 */
export async function writeCheckTree(
  outputs: RenderedOutputs,
  dirs: StorageDirs,
  base: string = tmpdir(),
): Promise<CheckTree> {
  const root = await mkdtemp(join(base, 'haptic-check-'));
  const logical = [dirs.mapsDir, dirs.sslCertsDir, dirs.generalStorageDir].map(trimSlash);
  const subs = new Map<string, string>();
  for (const d of logical) if (!subs.has(d)) subs.set(d, `s${subs.size}`);
  const sub = (d: string): string => subs.get(trimSlash(d)) ?? 's0';
  const physical = [...subs.keys()].map((d) => join(root, subs.get(d) ?? ''));
  const toTree = prefixRewriter([...subs.keys()], physical);
  const toLogical = prefixRewriter(physical, [...subs.keys()]);
  try {
    const configPath = join(root, 'haproxy.cfg');
    await writeFile(configPath, toTree(outputs.haproxyConfig), { mode: 0o600 });
    const writes: Promise<void>[] = [];
    for (const [n, t] of Object.entries(outputs.maps))
      writes.push(put(root, sub(dirs.mapsDir), n, t));
    for (const [n, t] of Object.entries(outputs.files))
      writes.push(put(root, sub(dirs.generalStorageDir), n, t));
    for (const [n, t] of Object.entries(outputs.sslCertificates))
      writes.push(put(root, sub(dirs.sslCertsDir), n, t));
    for (const [n, t] of Object.entries(outputs.crtLists))
      writes.push(put(root, sub(dirs.generalStorageDir), n, toTree(t)));
    await Promise.all(writes);
  } catch (e) {
    await rm(root, { recursive: true, force: true });
    throw e;
  }
  const outputOf = (path: string): string | undefined =>
    outputOfPath(path, root, outputs, dirs, sub);
  return {
    root,
    configPath: join(root, 'haproxy.cfg'),
    writeConfig: async (name, text) => {
      if (!SAFE_OUTPUT_NAME.test(name) || name.includes('/') || name === 'haproxy.cfg')
        throw new Error(`unsafe config name ${JSON.stringify(name)}`);
      const path = join(root, name);
      await writeFile(path, toTree(text), { mode: 0o600 });
      return path;
    },
    toLogical: (text) => toLogical(text).split(root).join('.'),
    outputOf,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

function outputOfPath(
  path: string,
  root: string,
  outputs: RenderedOutputs,
  dirs: StorageDirs,
  sub: (d: string) => string,
): string | undefined {
  if (path === join(root, 'haproxy.cfg')) return 'haproxy.cfg';
  const kinds: [string, string, Readonly<Record<string, string>>][] = [
    ['map', dirs.mapsDir, outputs.maps],
    ['crt-list', dirs.generalStorageDir, outputs.crtLists],
    ['file', dirs.generalStorageDir, outputs.files],
    ['cert', dirs.sslCertsDir, outputs.sslCertificates],
  ];
  for (const [kind, d, rec] of kinds) {
    const prefix = `${join(root, sub(d))}/`;
    const name = path.slice(prefix.length);
    if (path.startsWith(prefix) && Object.hasOwn(rec, name)) return `${kind}:${name}`;
  }
  return undefined;
}
