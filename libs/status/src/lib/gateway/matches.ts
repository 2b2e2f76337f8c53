import type { HeaderMatch, PathMatch } from './types.js';

export interface HttpMatchSpec {
  readonly path?: { readonly type?: PathMatch['type']; readonly value?: string };
  readonly headers?: readonly {
    readonly type?: HeaderMatch['type'];
    readonly name: string;
    readonly value: string;
  }[];
  readonly queryParams?: readonly {
    readonly type?: HeaderMatch['type'];
    readonly name: string;
    readonly value: string;
  }[];
  readonly method?: string;
}

export interface GrpcMatchSpec {
  readonly method?: {
    readonly type?: 'Exact' | 'RegularExpression';
    readonly service?: string;
    readonly method?: string;
  };
  readonly headers?: HttpMatchSpec['headers'];
}

/** A match in one shape for HTTP and gRPC: gRPC's service/method is the HTTP/2 :path. */
export interface NormalMatch {
  readonly path: PathMatch;
  readonly headers: readonly HeaderMatch[];
  readonly queryParams: readonly HeaderMatch[];
  readonly method?: string;
}

const headerList = (h: HttpMatchSpec['headers']): HeaderMatch[] =>
  (h ?? []).map((x) => ({ type: x.type ?? 'Exact', name: x.name, value: x.value }));

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A PathPrefix without its trailing slash (`/a/` and `/a` match the same segments); `/` stays. */
function normalPath(type: PathMatch['type'], value: string): PathMatch {
  if (type !== 'PathPrefix' || value === '/' || !value.endsWith('/')) return { type, value };
  return { type, value: value.replace(/\/+$/, '') || '/' };
}

export function httpMatch(m: HttpMatchSpec): NormalMatch {
  return {
    path: normalPath(m.path?.type ?? 'PathPrefix', m.path?.value ?? '/'),
    headers: headerList(m.headers),
    queryParams: headerList(m.queryParams),
    ...(m.method ? { method: m.method } : {}),
  };
}

function grpcPath(m: NonNullable<GrpcMatchSpec['method']>): PathMatch {
  const { service, method } = m;
  if ((m.type ?? 'Exact') === 'RegularExpression')
    return { type: 'RegularExpression', value: `^/${service ?? '[^/]+'}/${method ?? '[^/]+'}$` };
  if (service && method) return { type: 'Exact', value: `/${service}/${method}` };
  if (service) return { type: 'PathPrefix', value: `/${service}` };
  if (method) return { type: 'RegularExpression', value: `^/[^/]+/${escapeRegex(method)}$` };
  return { type: 'PathPrefix', value: '/' };
}

export function grpcMatch(m: GrpcMatchSpec): NormalMatch {
  return {
    path: m.method ? grpcPath(m.method) : { type: 'PathPrefix', value: '/' },
    headers: headerList(m.headers),
    queryParams: [],
  };
}

const PATH_RANK: Record<PathMatch['type'], number> = {
  Exact: 0,
  RegularExpression: 1,
  PathPrefix: 2,
};

/** Gateway API precedence of two matches (negative: `a` first): path, method, headers, query. */
export function compareMatches(a: NormalMatch, b: NormalMatch): number {
  const pr = PATH_RANK[a.path.type] - PATH_RANK[b.path.type];
  if (pr !== 0) return pr;
  if (a.path.type !== 'RegularExpression' && a.path.value.length !== b.path.value.length)
    return b.path.value.length - a.path.value.length;
  if (Boolean(a.method) !== Boolean(b.method)) return a.method ? -1 : 1;
  if (a.headers.length !== b.headers.length) return b.headers.length - a.headers.length;
  return b.queryParams.length - a.queryParams.length;
}
