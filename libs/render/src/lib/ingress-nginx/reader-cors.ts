// enable-cors and its cors-* annotations, with ingress-nginx's defaults and grammars.

/** What the CORS rules of a backend need. */
export interface Cors {
  /** `*` (every origin, answered `*`), or a case-insensitive regex of the allowed origins. */
  readonly origin: '*' | { readonly regex: string };
  readonly credentials: boolean;
  readonly methods: string;
  readonly headers: string;
  readonly expose: string;
  readonly maxAge: number;
}

/** The part of the annotation reader the CORS reading uses. */
export interface CorsSource {
  get(name: string): string | undefined;
  flag(name: string, fallback: boolean): boolean;
  int(name: string, min: number, max: number): number | undefined;
  fail(name: string, why: string): never;
}

const DEFAULT_METHODS = 'GET, PUT, POST, DELETE, PATCH, OPTIONS';
const DEFAULT_HEADERS =
  'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization';
const DEFAULT_MAX_AGE = 1728000;
// ingress-nginx's grammars (cors/main.go) for one origin, methods, headers, exposed headers
const ORIGIN = /^([a-z]+:\/\/(\*\.)?[A-Za-z0-9\-.]*(:\d+)?|null)$/;
const METHODS = /^([A-Za-z]+,?\s?)+$/;
const HEADERS = /^[A-Za-z0-9\-_\s,.*]*$/;
const EXPOSE = /^(([A-Za-z0-9\-_]+|\*),?\s?)+$/;

/** An origin as a regex: dots literal, a leading `*.` one DNS label (as ingress-nginx). */
function originRegex(origin: string): string {
  return origin.replace(/[.]/g, '\\.').replace('*', '[A-Za-z0-9-]+');
}

function origins(src: CorsSource): Cors['origin'] {
  const v = src.get('cors-allow-origin');
  if (v === undefined) return '*';
  const list: string[] = [];
  for (const part of v.split(',')) {
    const o = part.trim();
    if (o === '') continue;
    if (o === '*') return '*';
    if (!ORIGIN.test(o) || o.length > 253)
      src.fail('cors-allow-origin', `${JSON.stringify(o)} is not an origin (scheme://host[:port])`);
    list.push(originRegex(o));
  }
  if (list.length === 0) return '*';
  return { regex: `^(${list.join('|')})$` };
}

function text(src: CorsSource, name: string, grammar: RegExp, fallback: string): string {
  const v = src.get(name);
  if (v === undefined) return fallback;
  if (!grammar.test(v) || v.length > 1024)
    src.fail(name, `${JSON.stringify(v)} does not match ${String(grammar)}`);
  return v.trim();
}

/** The CORS settings when enable-cors is true, else undefined. */
export function readCors(src: CorsSource): Cors | undefined {
  if (!src.flag('enable-cors', false)) return undefined;
  return {
    origin: origins(src),
    credentials: src.flag('cors-allow-credentials', true),
    methods: text(src, 'cors-allow-methods', METHODS, DEFAULT_METHODS),
    headers: text(src, 'cors-allow-headers', HEADERS, DEFAULT_HEADERS),
    expose: text(src, 'cors-expose-headers', EXPOSE, ''),
    maxAge: src.int('cors-max-age', 0, 999_999_999) ?? DEFAULT_MAX_AGE,
  };
}
