// upstream-hash-by: ingress-nginx hashes each request's value of an nginx complex value (variables
// and literal text, e.g. `$request_uri` or `$host$http_x_user`) onto the endpoints consistently.
// haptic builds the same key as a HAProxy log-format from the fetches that give those variables
// and balances on it with `balance hash` and `hash-type consistent`. Any other variable or
// character refuses the value, naming it.

/** The fixed nginx variables the library maps, and the HAProxy fetch of each. */
const FIXED: Readonly<Record<string, string>> = {
  request_uri: 'pathq',
  uri: 'path',
  document_uri: 'path',
  args: 'query',
  query_string: 'query',
  host: 'var(txn.host)',
  remote_addr: 'var(txn.nginx_client)',
  binary_remote_addr: 'var(txn.nginx_client)',
  scheme: 'var(txn.nginx_scheme)',
  request_method: 'method',
};
/** nginx's variable families with a name part: the fetch of `$<family><name>`. */
const FAMILIES: readonly (readonly [string, (n: string) => string])[] = [
  ['http_', (n) => `req.hdr(${n.replace(/_/g, '-')})`],
  ['cookie_', (n) => `req.cook(${n})`],
  ['arg_', (n) => `url_param(${n})`],
];
const TOKEN = /\$\{([A-Za-z0-9_]+)\}|\$([A-Za-z0-9_]+)|([A-Za-z0-9._:/-]+)/y;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function fetchOf(variable: string): string | undefined {
  const fixed = FIXED[variable];
  if (fixed !== undefined) return fixed;
  for (const [prefix, fetch] of FAMILIES)
    if (variable.startsWith(prefix) && NAME.test(variable.slice(prefix.length)))
      return fetch(variable.slice(prefix.length));
  return undefined;
}

/**
 * The log-format of the hash key of an upstream-hash-by value (its literal text is limited to
 * characters HAProxy reads plainly); a string saying what is wrong when it cannot be mapped.
 */
export function hashKeyFormat(value: string): { format: string } | { problem: string } {
  const v = value.trim();
  if (v.length === 0 || v.length > 256)
    return { problem: 'is empty or longer than 256 characters' };
  let format = '';
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < v.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(v);
    if (m === null)
      return {
        problem: `has ${JSON.stringify(v.slice(at, at + 1))} where a $variable or plain text was expected`,
      };
    const variable = m[1] ?? m[2];
    if (variable === undefined) {
      format += m[3] ?? '';
      continue;
    }
    const fetch = fetchOf(variable);
    if (fetch === undefined)
      return {
        problem: `uses $${variable}, which the library does not map (it maps $request_uri, $uri, $args, $host, $remote_addr, $scheme, $request_method, $http_*, $cookie_*, $arg_*)`,
      };
    format += `%[${fetch}]`;
  }
  if (!format.includes('%[')) return { problem: 'names no nginx variable' };
  return { format };
}
