// Hosts and paths as ingress-nginx merges them, on top of the Ingress model: a host where one
// served Ingress sets use-regex or rewrite-target has every path (of every Ingress) matched as a
// case-insensitive regular expression anchored at the start, in ingress-nginx's location order
// (longest path first, then reverse code-unit order); server-alias adds the Ingress's paths
// under other host names that no Ingress serves.
import { byCodeUnits, field, path, str } from '../liquid-values.js';
import type { IngressRoute, ReadIngress } from '../ingress/model.js';
import { NGINX_PREFIX } from './catalogue-types.js';
import { NginxRefusal } from './reader.js';

/** The route tables of the ingress-nginx library. */
export interface NginxRoutes {
  readonly exact_routes: readonly IngressRoute[];
  readonly prefix_routes: readonly IngressRoute[];
  /** `key` is a regex over "<host><path>" (map_reg), in match order. */
  readonly regex_routes: readonly IngressRoute[];
}

const HOST = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function annotation(r: ReadIngress, name: string): string | undefined {
  const v = field(path(r.ing, 'metadata', 'annotations'), NGINX_PREFIX + name);
  return typeof v === 'string' ? v : undefined;
}

/** Whether an Ingress makes its hosts regex hosts (use-regex, or a rewrite-target). */
export function wantsRegex(r: ReadIngress): boolean {
  const target = annotation(r, 'rewrite-target');
  return (
    /^(1|t|true|TRUE|True)$/.test(annotation(r, 'use-regex')?.trim() ?? '') ||
    (target !== undefined && target !== '')
  );
}

const escapeRegex = (s: string): string => s.replace(/[\\^$.|?*+()[\]{}/-]/g, '\\$&');

/** Why a path is not a regular expression the library can use, or undefined. */
export function regexProblem(p: string): string | undefined {
  if (!p.startsWith('/')) return 'does not start with /';
  try {
    new RegExp(p);
  } catch {
    return 'is not a valid regular expression';
  }
  return undefined;
}

/** The server-alias host names of an Ingress (checked). */
function aliasesOf(r: ReadIngress): string[] {
  const v = annotation(r, 'server-alias');
  if (v === undefined) return [];
  const out: string[] = [];
  for (const part of v.split(',')) {
    const h = part.trim().toLowerCase();
    if (h === '') continue;
    if (!HOST.test(h) || h.length > 253)
      throw new NginxRefusal(
        `Ingress ${r.id}: annotation ${NGINX_PREFIX}server-alias: ${JSON.stringify(h)} is not a host name`,
      );
    out.push(h);
  }
  return out;
}

interface Located {
  readonly host: string;
  readonly path: string;
  readonly kind: string;
  readonly key: string;
  readonly backend: string;
}

/** Every claim of the served Ingresses, with the server-alias copies (hosts no rule names). */
function located(served: readonly ReadIngress[], refuse: (r: ReadIngress, e: unknown) => void) {
  const all: Located[] = served.flatMap((r) => r.claims);
  const named = new Set(all.map((c) => c.host));
  for (const r of served) {
    let aliases: string[];
    try {
      aliases = aliasesOf(r);
    } catch (err) {
      refuse(r, err);
      continue;
    }
    for (const alias of aliases) {
      if (named.has(alias)) continue; // ingress-nginx: a real server of that name wins
      for (const c of r.claims)
        all.push({ ...c, host: alias, key: alias + c.key.slice(c.host.length) });
    }
  }
  return all;
}

const byLocation = (a: Located, b: Located): number =>
  byCodeUnits(a.host, b.host) || b.path.length - a.path.length || byCodeUnits(b.path, a.path);

/** The route tables over the served Ingresses (refusing an Ingress whose paths cannot be). */
export function nginxRoutes(
  served: readonly ReadIngress[],
  refuse: (r: ReadIngress, e: unknown) => void,
): NginxRoutes {
  const regexHosts = new Set<string>();
  for (const r of served) if (wantsRegex(r)) for (const c of r.claims) regexHosts.add(c.host);
  for (const r of served) {
    const bad = r.claims.find((c) => regexHosts.has(c.host) && regexProblem(c.path));
    if (bad)
      refuse(
        r,
        new NginxRefusal(
          `Ingress ${r.id}: path ${bad.path} of host ${bad.host} (use-regex) ${regexProblem(bad.path) ?? ''}`,
        ),
      );
  }
  const exact = new Map<string, IngressRoute>();
  const prefix = new Map<string, IngressRoute>();
  const regex = new Map<string, Located>();
  // the first claim of a key wins (served Ingresses oldest first), as in the Ingress model
  for (const c of located(served, refuse)) {
    if (regexHosts.has(c.host)) {
      const key = `^${escapeRegex(c.host)}(?i:${c.path})`;
      if (!regex.has(key)) regex.set(key, { ...c, key });
    } else {
      const table = c.kind === 'E' ? exact : prefix;
      if (!table.has(c.key)) table.set(c.key, { key: c.key, backend: c.backend });
    }
  }
  const rank = (r: IngressRoute): string => `${99999 - r.key.length} ${r.key}`;
  return {
    exact_routes: [...exact.values()].sort((a, b) => byCodeUnits(a.key, b.key)),
    prefix_routes: [...prefix.values()].sort((a, b) => byCodeUnits(rank(a), rank(b))),
    regex_routes: [...regex.values()]
      .sort(byLocation)
      .map((c) => ({ key: c.key, backend: c.backend })),
  };
}

/** The paths an Ingress routes to one backend, in ingress-nginx's location order. */
export function backendPaths(ing: object, service: string, port: string): string[] {
  const out: string[] = [];
  for (const rule of asArray(path(ing, 'spec', 'rules')))
    for (const p of asArray(path(rule, 'http', 'paths'))) {
      const svc = path(p, 'backend', 'service');
      const number = path(svc, 'port', 'number');
      const named = path(svc, 'port', 'name');
      const matches = str(field(svc, 'name')) === service && str(number ?? named) === port;
      const at = str(field(p, 'path') ?? '/') || '/';
      if (matches && !out.includes(at)) out.push(at);
    }
  return out.sort((a, b) => b.length - a.length || byCodeUnits(b, a));
}

function asArray(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}
