import { createHash } from 'node:crypto';
import type { ConfigLine } from '#haproxy-config';
import type { RenderedOutputs } from './outputs.js';
import { resolveStoragePath, type StorageDirs } from './paths.js';

/**
 * A Lua file shipped with a template library and reviewed (ADR 0013): the sandbox lets a render
 * load it without `allowedDirectives` only when the rendered general file has exactly this
 * content, and lets `lua.*` name only the actions it registers.
 */
export interface VettedLua {
  /** The general file's name (storage name, no folder). */
  readonly name: string;
  /** SHA-256 of the file's exact content, lower-case hex. */
  readonly sha256: string;
  /** The actions (`http-request lua.<name>`) the file registers. */
  readonly actions: readonly string[];
}

/** The allow-list: a changed file needs its new hash here, and a review. */
export const VETTED_LUA: readonly VettedLua[] = [
  {
    // helm/haptic/libraries/ingress-nginx/files/auth-request.lua.liquid (external auth)
    name: 'auth-request.lua',
    sha256: 'df0e3d47563a33a72ebbcd21e9216a738e2416e9e7388cf20b1a531b7d870304',
    actions: ['haptic_nginx_auth'],
  },
  {
    // helm/haptic/libraries/ingress-nginx/files/error-page.lua.liquid (custom-http-errors)
    name: 'error-page.lua',
    sha256: 'dd21104bad1ae6af8e3e49b186bf13d679ea90300a2943aa78dcf50a64702047',
    actions: ['haptic_nginx_error_page'],
  },
];

const LOADS = new Set(['lua-load', 'lua-load-per-thread']);

/** SHA-256 of a text (UTF-8), lower-case hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The vetted file a `lua-load` line loads, if it is one and the render's content matches. */
function vettedLoad(
  l: ConfigLine,
  dirs: StorageDirs,
  outputs: RenderedOutputs,
): VettedLua | undefined {
  const path = l.words[1];
  if (l.section !== 'global' || !LOADS.has(l.words[0] ?? '')) return undefined;
  if (path === undefined || l.words.length !== 2) return undefined;
  const where = resolveStoragePath(path, dirs, outputs);
  if (where?.kind !== 'output' || where.dir === '') return undefined;
  const name = path.slice(where.dir.length + 1);
  const entry = VETTED_LUA.find((v) => v.name === name);
  const text = Object.hasOwn(outputs.files, name) ? outputs.files[name] : undefined;
  if (entry === undefined || text === undefined || sha256Hex(text) !== entry.sha256)
    return undefined;
  return entry;
}

// `http-request lua.<action>` or `http-response lua.<action>` with nothing after the action (the
// vetted actions take no argument and no condition).
const ACTION = /^lua\.([A-Za-z0-9_]+)$/;

/**
 * The lines a render may keep though they use Lua: loads of vetted files (content hash checked)
 * and `http-request`/`http-response lua.<action>` lines naming an action one of those loaded
 * files registers.
 */
export function vettedLuaLines(
  lines: readonly ConfigLine[],
  dirs: StorageDirs,
  outputs: RenderedOutputs,
): Set<ConfigLine> {
  const ok = new Set<ConfigLine>();
  const actions = new Set<string>();
  for (const l of lines) {
    const v = vettedLoad(l, dirs, outputs);
    if (v === undefined) continue;
    ok.add(l);
    for (const a of v.actions) actions.add(a);
  }
  for (const l of lines) {
    const rule = l.words[0] === 'http-request' || l.words[0] === 'http-response';
    const m = l.words.length === 2 && rule ? ACTION.exec(l.words[1] ?? '') : null;
    if (m?.[1] !== undefined && actions.has(m[1])) ok.add(l);
  }
  return ok;
}
