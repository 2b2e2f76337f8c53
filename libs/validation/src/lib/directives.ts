import type { ConfigLine } from '#haproxy-config';

/**
 * A directive refused by default because HAProxy would run code, fork, load a shared object, or
 * change what the sandbox controls while merely checking the configuration. `id` is the name an
 * operator lists in `spec.validation.allowedDirectives` to permit it.
 */
export interface RefusedDirective {
  readonly id: string;
  readonly why: string;
  readonly matches: (l: ConfigLine) => boolean;
}

const first = (l: ConfigLine): string => l.words[0] ?? '';
const keyword =
  (...names: string[]) =>
  (l: ConfigLine): boolean =>
    names.includes(first(l));
// lua.* actions, services and sample fetches (`http-request lua.x`, `use-service lua.x`, `%[lua.f]`).
const usesLua = (l: ConfigLine): boolean =>
  l.words.some((w) => w.includes('lua.') && /(^|[[(,])lua\./.test(w));

/** The catalogue of refused directives (documented in the lib README). */
export const REFUSED_DIRECTIVES: readonly RefusedDirective[] = [
  { id: 'lua-load', why: 'loads and runs Lua code', matches: keyword('lua-load') },
  {
    id: 'lua-load-per-thread',
    why: 'loads and runs Lua code',
    matches: keyword('lua-load-per-thread'),
  },
  {
    id: 'lua-prepend-path',
    why: 'widens where Lua code is loaded from',
    matches: keyword('lua-prepend-path'),
  },
  { id: 'lua', why: 'calls Lua code (lua.* action, service or fetch)', matches: usesLua },
  {
    id: 'program',
    why: 'runs an external program',
    matches: (l) => l.header && first(l) === 'program',
  },
  {
    id: 'external-check',
    why: 'forks an external command for health checks',
    matches: (l) =>
      first(l) === 'external-check' || (first(l) === 'option' && l.words[1] === 'external-check'),
  },
  {
    id: 'setenv',
    why: 'rewrites the environment the sandbox controls',
    matches: keyword('setenv', 'presetenv', 'resetenv', 'unsetenv'),
  },
  {
    id: 'ssl-engine',
    why: 'loads an OpenSSL engine (native code)',
    matches: keyword('ssl-engine'),
  },
  {
    id: 'ssl-provider',
    why: 'loads an OpenSSL provider (native code)',
    matches: keyword('ssl-provider', 'ssl-provider-path'),
  },
  {
    id: 'insecure-fork-wanted',
    why: 'lifts the protection against forking',
    matches: keyword('insecure-fork-wanted', 'insecure-setuid-wanted'),
  },
  {
    id: 'default-path',
    why: 'moves the base of relative paths out of the checked tree',
    matches: keyword('default-path'),
  },
  {
    id: 'filter-config',
    why: 'reads a filter configuration file (spoe, opentracing)',
    matches: (l) => first(l) === 'filter' && l.words.includes('config'),
  },
];

/** One refused line: which directive, where, and why. */
export interface DirectiveRefusal {
  readonly id: string;
  readonly line: number;
  readonly why: string;
  readonly text: string;
}

/** Lines of haproxy.cfg that use a refused directive not listed in `allowed`. */
export function findRefusedDirectives(
  lines: readonly ConfigLine[],
  allowed: readonly string[] = [],
): DirectiveRefusal[] {
  const permitted = new Set(allowed);
  const out: DirectiveRefusal[] = [];
  for (const l of lines) {
    const hit = REFUSED_DIRECTIVES.find((d) => d.matches(l));
    if (hit && !permitted.has(hit.id)) {
      out.push({ id: hit.id, line: l.line, why: hit.why, text: l.words.join(' ') });
    }
  }
  return out;
}
