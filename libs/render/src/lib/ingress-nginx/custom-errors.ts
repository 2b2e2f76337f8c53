// custom-http-errors: answers of the Ingress's backend with one of these statuses are replaced by
// the default backend's answer to ingress-nginx's error request (GET / with X-Code, X-Format,
// X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port, X-Request-ID),
// as nginx's error_page does. The codes are the annotation's, else the library's custom_http_errors
// (ingress-nginx's ConfigMap setting); the default backend is the Ingress's default-backend
// Service, else the library's default_backend_service (--default-backend-service); the
// library's vetted Lua action (files/error-page.lua.liquid, docs/adr/0013) asks one of its
// usable servers. Without one, ingress-nginx's own default backend answers 404: so does HAProxy,
// with the library's 404 page.

import { field, isNil } from '../liquid-values.js';

/** What the reader offers (reader.ts's NginxReader; an interface here to avoid a cycle). */
export interface CustomErrorsSource {
  get(name: string): string | undefined;
  fail(name: string, why: string): never;
}

/** The action error-page.lua registers (the validation allow-list names it too). */
export const ERROR_PAGE_ACTION = 'haptic_nginx_error_page';

// ingress-nginx's grammar: 4xx and 5xx codes separated by commas, nothing else
const CODES = /^(?:[45][0-9]{2},?)*$/;

/** Codes separated by commas, sorted and once each; undefined when `v` is not that grammar. */
function codesOf(v: string): number[] | undefined {
  if (!CODES.test(v)) return undefined;
  return [
    ...new Set(
      v
        .split(',')
        .filter((c) => c !== '')
        .map(Number),
    ),
  ].sort((a, b) => a - b);
}

/**
 * The statuses custom-http-errors names (sorted, once each), or undefined without the annotation
 * (the library's custom_http_errors then applies, as ingress-nginx's ConfigMap setting does).
 */
export function readCustomErrors(r: CustomErrorsSource): number[] | undefined {
  const v = r.get('custom-http-errors')?.trim();
  if (v === undefined) return undefined;
  const codes = codesOf(v);
  if (codes === undefined)
    r.fail(
      'custom-http-errors',
      `${JSON.stringify(v)} is not 4xx and 5xx codes separated by commas`,
    );
  return codes;
}

/**
 * The library's `custom_http_errors` (ingress-nginx's ConfigMap custom-http-errors: every location
 * without the annotation): a string of codes separated by commas or a list of codes; [] unset.
 */
export function globalCustomErrors(extra: unknown): number[] {
  const v = field(extra, 'custom_http_errors');
  if (isNil(v)) return [];
  const scalar = (c: unknown) => (typeof c === 'number' || typeof c === 'string' ? String(c) : 'x');
  const text = Array.isArray(v) ? v.map(scalar).join(',') : scalar(v);
  const codes = codesOf(text.replace(/\s/g, ''));
  if (codes === undefined)
    throw new Error(
      `templatingSettings.extraContext.custom_http_errors: ${JSON.stringify(v)} is not 4xx and 5xx codes (a list, or separated by commas)`,
    );
  return codes;
}

// namespace/name of the library's default_backend_service (DNS labels)
const SERVICE_REF = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\/([a-z]([-a-z0-9]{0,61}[a-z0-9])?)$/;

/**
 * The library's `default_backend_service` (ingress-nginx's --default-backend-service) as
 * `[namespace, name]`, or undefined unset; another form fails the render, naming the setting.
 */
export function globalDefaultBackendSpec(extra: unknown): readonly [string, string] | undefined {
  const v = field(extra, 'default_backend_service');
  if (isNil(v) || v === '') return undefined;
  const m = typeof v === 'string' ? SERVICE_REF.exec(v.trim()) : null;
  if (!m)
    throw new Error(
      `templatingSettings.extraContext.default_backend_service: ${JSON.stringify(v)} is not namespace/name of a Service`,
    );
  return [m[1] ?? '', m[3] ?? ''];
}

/** Where an Ingress's error requests go and what they say about it. */
export interface ErrorTarget {
  /** The default backend's HAProxy backend, or undefined (the library's 404 answers). */
  readonly fallback: string | undefined;
  readonly namespace: string;
  readonly ingress: string;
  readonly service: string;
  readonly port: string;
}

type Quote = (v: string) => string;

/** Lines the backend needs first: what the error request tells of the request as it came. */
export function customErrorRequestLines(codes: readonly number[], t: ErrorTarget): string[] {
  if (codes.length === 0 || t.fallback === undefined) return [];
  return [
    'http-request set-var(txn.nginx_err_uri) pathq',
    'http-request set-var(txn.nginx_err_fmt) req.hdr(accept)',
    'http-request set-var(txn.nginx_err_id) req.hdr(x-request-id)',
  ];
}

/** The answer's lines: the codes and the target for the Lua action, or the library's 404. */
export function customErrorResponseLines(
  codes: readonly number[],
  t: ErrorTarget,
  hv: Quote,
): string[] {
  if (codes.length === 0) return [];
  if (t.fallback === undefined)
    return [`http-response return status 404 default-errorfiles if { status ${codes.join(' ')} }`];
  return [
    `http-response set-var-fmt(txn.nginx_err_codes) ${hv(codes.join(','))}`,
    `http-response set-var-fmt(txn.nginx_err_be) ${hv(t.fallback)}`,
    `http-response set-var-fmt(txn.nginx_err_meta) ${hv([t.namespace, t.ingress, t.service, t.port].join(','))}`,
    `http-response lua.${ERROR_PAGE_ACTION}`,
  ];
}
