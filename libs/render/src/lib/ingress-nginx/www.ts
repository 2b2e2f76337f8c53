// from-to-www-redirect as ingress-nginx serves it: a host `H` whose Ingress sets it gets a
// redirect server for `www.H` (or for `H` without `www.` when `H` starts with it) answering 308
// to `<scheme>://H<request URI>`, unless some served Ingress names that other host itself.
import type { ReadIngress } from '../ingress/model.js';
import { field, path } from '../liquid-values.js';
import { NGINX_PREFIX } from './catalogue-types.js';

/** One redirect of the frontend: requests for `from` go to `to` (308). */
export interface WwwRedirect {
  readonly from: string;
  readonly to: string;
}

const ON = /^(1|t|T|TRUE|true|True)$/;

function wantsWww(r: ReadIngress): boolean {
  const v = field(path(r.ing, 'metadata', 'annotations'), `${NGINX_PREFIX}from-to-www-redirect`);
  return typeof v === 'string' && ON.test(v.trim());
}

/** The www redirects of the served Ingresses (hosts already checked by the Ingress model). */
export function wwwRedirects(served: readonly ReadIngress[]): WwwRedirect[] {
  const named = new Set(served.flatMap((r) => r.claims.map((c) => c.host)));
  const out = new Map<string, WwwRedirect>();
  for (const r of served) {
    if (!wantsWww(r)) continue;
    for (const c of r.claims) {
      if (c.host === '*' || c.host.startsWith('*.')) continue; // no name to redirect from
      const from = c.host.startsWith('www.') ? c.host.slice(4) : `www.${c.host}`;
      // ingress-nginx: a server of that name already exists, so no redirect server is made
      if (from === '' || named.has(from) || out.has(from)) continue;
      out.set(from, { from, to: c.host });
    }
  }
  return [...out.values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}
