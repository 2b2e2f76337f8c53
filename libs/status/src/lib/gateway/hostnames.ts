/** Hostname intersection and specificity as the Gateway API defines them. */

const isWildcard = (h: string) => h.startsWith('*.');

/** Does `host` (exact) fall under `wildcard` (`*.suffix`: one or more labels before the suffix)? */
function under(host: string, wildcard: string): boolean {
  return host.endsWith(wildcard.slice(1)) && host.length > wildcard.length - 1;
}

/**
 * The hostname both a listener and a route hostname admit (the more specific of the two), or
 * undefined when they do not intersect. `listener` undefined admits any host.
 */
export function intersect(listener: string | undefined, route: string): string | undefined {
  const l = listener?.toLowerCase();
  const r = route.toLowerCase();
  if (!l) return r;
  if (!isWildcard(l) && !isWildcard(r)) return l === r ? r : undefined;
  if (!isWildcard(l)) return under(l, r) ? l : undefined;
  if (!isWildcard(r)) return under(r, l) ? r : undefined;
  if (r === l || under(r.slice(2), l)) return r;
  if (under(l.slice(2), r)) return l;
  return undefined;
}

/**
 * The hostnames a route serves through a listener: listener ∩ route hostnames; `*` (any) when
 * neither names one. Empty when they do not intersect.
 */
export function effectiveHostnames(
  listener: string | undefined,
  route: readonly string[],
): string[] {
  if (route.length === 0) return [listener?.toLowerCase() ?? '*'];
  const out = new Set<string>();
  for (const r of route) {
    const h = intersect(listener, r);
    if (h) out.add(h);
  }
  return [...out];
}

/** Sort key of a hostname: exact hosts first, then wildcards (longest suffix first), then `*`. */
export function hostnameRank(h: string): [number, number] {
  if (h === '*') return [2, 0];
  if (isWildcard(h)) return [1, -h.length];
  return [0, 0];
}
