// custom-headers: the entries of a ConfigMap (`namespace/name`) set as headers of every answer of
// the Ingress's locations, as ingress-nginx's more_set_headers sets them. Each header name must be
// in the library's global_allowed_response_headers (ingress-nginx's global-allowed-response-
// headers). A missing ConfigMap denies the locations with 503, as ingress-nginx does; a name or
// value outside the grammar, or a name not allowed, refuses the Ingress naming the key.
import { FORBIDDEN_CHARS } from '../escaper.js';
import { objectRef } from '../snapshot.js';
import type { RenderNotice } from '../types.js';
import { field, isNil, items, path, str } from '../liquid-values.js';
import { NGINX_PREFIX } from './catalogue-types.js';
import { NginxRefusal } from './reader.js';

const ANNOTATION = 'custom-headers';
const NAME = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
/** ingress-nginx's header name grammar (a subset of RFC 9110 tokens). */
const HEADER = /^[A-Za-z0-9_-]{1,256}$/;
const MAX_VALUE = 4096;

/** The ConfigMap an Ingress names in custom-headers. */
export interface CustomHeadersSpec {
  readonly namespace: string;
  readonly name: string;
}

/** The headers of one Ingress's answers, or why its locations answer 503. */
export type CustomHeaders =
  | { readonly headers: readonly (readonly [string, string])[]; readonly denied?: undefined }
  | { readonly headers?: undefined; readonly denied: string };

function idOf(ing: object): string {
  return `Ingress ${str(path(ing, 'metadata', 'namespace'))}/${str(path(ing, 'metadata', 'name'))}`;
}

function refuse(ing: object, why: string): never {
  throw new NginxRefusal(`${idOf(ing)}: annotation ${NGINX_PREFIX}${ANNOTATION}: ${why}`);
}

/**
 * The ConfigMap custom-headers names, or undefined (no annotation, or empty). Throws NginxRefusal
 * when it is not `namespace/name` or names another namespace (ingress-nginx's documentation
 * allows only ConfigMaps in the Ingress's own namespace).
 */
export function customHeadersSpec(ing: object): CustomHeadersSpec | undefined {
  const raw = field(path(ing, 'metadata', 'annotations'), NGINX_PREFIX + ANNOTATION);
  const ref = isNil(raw) ? '' : str(raw).trim();
  if (ref === '') return undefined;
  const [namespace = '', name = '', ...rest] = ref.split('/');
  if (rest.length > 0 || !NAME.test(namespace) || !NAME.test(name))
    refuse(ing, `${JSON.stringify(ref)} is not namespace/name of a ConfigMap`);
  if (namespace !== str(path(ing, 'metadata', 'namespace')))
    refuse(ing, `ConfigMap ${ref} is in another namespace than the Ingress`);
  return { namespace, name };
}

function missingMessage(ing: object, ref: string): string {
  return `${idOf(ing)}: custom-headers: ConfigMap ${ref} not found; its locations answer 503`;
}

/**
 * A notice per served Ingress whose custom-headers ConfigMap is missing, read afresh at each
 * render (a ConfigMap changes without its Ingress). Served Ingresses have a valid annotation.
 */
export function customHeadersNotices(
  served: readonly object[],
  configMaps: ((keys: readonly string[]) => readonly object[]) | undefined,
): RenderNotice[] {
  const notices: RenderNotice[] = [];
  for (const ing of served) {
    const spec = customHeadersSpec(ing);
    if (spec === undefined || configMaps?.([spec.namespace, spec.name])[0] !== undefined) continue;
    const message = missingMessage(ing, `${spec.namespace}/${spec.name}`);
    notices.push({ message, object: objectRef('ingresses', ing) });
  }
  return notices;
}

/** The header names global_allowed_response_headers allows (a list or a comma-separated text). */
export function allowedHeaders(extra: unknown): Set<string> {
  const v = field(extra, 'global_allowed_response_headers');
  const list = typeof v === 'string' ? v.split(',') : items(v).map(str);
  return new Set(list.map((h) => h.trim().toLowerCase()).filter((h) => h !== ''));
}

/**
 * The headers of the ConfigMap `spec` names (`configMaps` looks one up by namespace and name), in
 * key order; denied (503) when it is missing. Throws NginxRefusal for a bad or unallowed key.
 */
export function customHeadersOf(
  ing: object,
  spec: CustomHeadersSpec,
  configMaps: ((keys: readonly string[]) => readonly object[]) | undefined,
  allowed: ReadonlySet<string>,
): CustomHeaders {
  const ref = `${spec.namespace}/${spec.name}`;
  const cm = configMaps?.([spec.namespace, spec.name])[0];
  if (cm === undefined) return { denied: missingMessage(ing, ref) };
  const data = field(cm, 'data');
  const keys = data !== null && typeof data === 'object' ? Object.keys(data).sort() : [];
  const headers: [string, string][] = [];
  for (const key of keys) {
    const at = `ConfigMap ${ref} key ${JSON.stringify(key)}`;
    if (!HEADER.test(key)) refuse(ing, `${at} is not a header name (letters, digits, - and _)`);
    if (!allowed.has(key.toLowerCase()))
      refuse(
        ing,
        `${at}: header ${key} is not in the library's global_allowed_response_headers (ingress-nginx's global-allowed-response-headers)`,
      );
    const value = str(field(data, key));
    if (FORBIDDEN_CHARS.test(value) || value.length > MAX_VALUE)
      refuse(ing, `${at}: the value holds a control character or is over ${MAX_VALUE} characters`);
    headers.push([key, value]);
  }
  return { headers };
}
