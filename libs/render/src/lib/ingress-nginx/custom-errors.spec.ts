import { describe, expect, it } from 'vitest';
import {
  customErrorRequestLines,
  customErrorResponseLines,
  globalCustomErrors,
  globalDefaultBackendSpec,
  readCustomErrors,
} from './custom-errors.js';
import { globalFallbackOf } from './default-backend.js';
import { NginxReader } from './reader.js';

const P = 'nginx.ingress.kubernetes.io/';
const read = (v: string) =>
  readCustomErrors(
    new NginxReader(
      {
        metadata: {
          namespace: 'apps',
          name: 'web',
          annotations: { [`${P}custom-http-errors`]: v },
        },
      },
      {},
    ),
  );
const hv = (v: string) => `"${v}"`;
const target = { namespace: 'apps', ingress: 'web', service: 'echo', port: '8080' };

describe('custom-http-errors', () => {
  it("reads ingress-nginx's grammar: 4xx and 5xx codes separated by commas, once each", () => {
    expect(read('503,404,503,')).toEqual([404, 503]);
    expect(read('')).toEqual([]);
    for (const bad of ['404, 503', '302', '404;503', '4040', 'abc'])
      expect(() => read(bad), bad).toThrow(
        /custom-http-errors: .* is not 4xx and 5xx codes separated by commas/,
      );
  });

  it('asks the default backend through the vetted action, or answers the library 404 without one', () => {
    const withDefault = { ...target, fallback: 'svc_apps_errors_8081' };
    expect(customErrorRequestLines([404], withDefault)).toHaveLength(3);
    expect(customErrorResponseLines([404, 503], withDefault, hv)).toEqual([
      'http-response set-var-fmt(txn.nginx_err_codes) "404,503"',
      'http-response set-var-fmt(txn.nginx_err_be) "svc_apps_errors_8081"',
      'http-response set-var-fmt(txn.nginx_err_meta) "apps,web,echo,8080"',
      'http-response lua.haptic_nginx_error_page',
    ]);
    const none = { ...target, fallback: undefined };
    expect(customErrorRequestLines([503], none)).toEqual([]);
    expect(customErrorResponseLines([503], none, hv)).toEqual([
      'http-response return status 404 default-errorfiles if { status 503 }',
    ]);
    expect(customErrorResponseLines([], withDefault, hv)).toEqual([]);
  });

  it("reads the library's custom_http_errors (a list or codes separated by commas) and default_backend_service (namespace/name)", () => {
    expect(globalCustomErrors({})).toEqual([]);
    expect(globalCustomErrors({ custom_http_errors: '' })).toEqual([]);
    expect(globalCustomErrors({ custom_http_errors: '503, 404' })).toEqual([404, 503]);
    expect(globalCustomErrors({ custom_http_errors: [503, 404, 503] })).toEqual([404, 503]);
    for (const bad of ['302', 'x', { a: 1 }])
      expect(() => globalCustomErrors({ custom_http_errors: bad })).toThrow(
        /^templatingSettings\.extraContext\.custom_http_errors: .* is not 4xx and 5xx codes/,
      );
    expect(globalDefaultBackendSpec({})).toBeUndefined();
    expect(globalDefaultBackendSpec({ default_backend_service: 'shared/errors' })).toEqual([
      'shared',
      'errors',
    ]);
    for (const bad of ['errors', 'a/b/c', 'Shared/errors', 7])
      expect(() => globalDefaultBackendSpec({ default_backend_service: bad })).toThrow(
        /^templatingSettings\.extraContext\.default_backend_service: .* is not namespace\/name of a Service$/,
      );
    const svc = { spec: { ports: [{ port: 8082 }, { port: 9 }] } };
    const services = (keys: readonly string[]) => (keys.join('/') === 'shared/errors' ? [svc] : []);
    const extra = { default_backend_service: 'shared/errors' };
    expect(globalFallbackOf(extra, services)).toEqual({
      backend: 'svc_shared_errors_8082',
      namespace: 'shared',
      service: 'errors',
      port: '8082',
    });
    expect(globalFallbackOf({ default_backend_service: 'shared/gone' }, services)).toBeUndefined();
  });

  it('an Ingress without the annotation takes the library codes; its own, empty too, wins', () => {
    const reader = (annotations: Record<string, string>) =>
      new NginxReader(
        { metadata: { namespace: 'apps', name: 'web', annotations } },
        { custom_http_errors: '404' },
      );
    expect(readCustomErrors(reader({}))).toBeUndefined();
    expect(readCustomErrors(reader({ [`${P}custom-http-errors`]: '' }))).toEqual([]);
  });
});
