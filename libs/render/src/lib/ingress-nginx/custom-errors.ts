// custom-http-errors: answers of the Ingress's backend with one of these statuses are replaced by
// the default backend's answer to ingress-nginx's error request (GET / with X-Code, X-Format,
// X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port, X-Request-ID),
// as nginx's error_page does. The default backend is the Ingress's default-backend Service; the
// library's vetted Lua action (files/error-page.lua.liquid, docs/adr/0013) asks one of its
// usable servers. Without one, ingress-nginx's own default backend answers 404: so does HAProxy,
// with the library's 404 page.

/** What the reader offers (reader.ts's NginxReader; an interface here to avoid a cycle). */
export interface CustomErrorsSource {
  get(name: string): string | undefined;
  fail(name: string, why: string): never;
}

/** The action error-page.lua registers (the validation allow-list names it too). */
export const ERROR_PAGE_ACTION = 'haptic_nginx_error_page';

// ingress-nginx's grammar: 4xx and 5xx codes separated by commas, nothing else
const CODES = /^(?:[45][0-9]{2},?)*$/;

/** The statuses custom-http-errors names (sorted, once each), [] without it. */
export function readCustomErrors(r: CustomErrorsSource): number[] {
  const v = r.get('custom-http-errors')?.trim();
  if (v === undefined || v === '') return [];
  if (!CODES.test(v))
    r.fail(
      'custom-http-errors',
      `${JSON.stringify(v)} is not 4xx and 5xx codes separated by commas`,
    );
  return [
    ...new Set(
      v
        .split(',')
        .filter((c) => c !== '')
        .map(Number),
    ),
  ].sort((a, b) => a - b);
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
