import { get, host, ingress, type NginxCase } from './cases.js';

const errorsHost = host('custom-errors');
const plainHost = host('custom-errors-plain');

/**
 * custom-http-errors as ingress-nginx's CUSTOM_ERRORS locations give it: a listed status of the
 * backend's answer (httpbun's /status/NNN) is replaced by the default backend's answer to
 * `GET /` with X-Code, X-Format, X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name,
 * X-Service-Port (echo-b, which shows what it got); without a default backend, 404.
 */
export const ERROR_CASES: readonly NginxCase[] = [
  {
    name: "custom-http-errors: a listed status gets the default backend's answer to the error request (X-Code, X-Format, X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port); others pass; without default-backend 404",
    annotations: ['custom-http-errors', 'default-backend'],
    objects: [
      ingress('custom-errors', errorsHost, [['/', 'httpbun']], {
        'custom-http-errors': '404,503',
        'default-backend': 'echo-b',
      }),
      ingress('custom-errors-plain', plainHost, [['/', 'httpbun']], {
        'custom-http-errors': '503',
      }),
    ],
    steps: [
      // the Ingress applied last first (a listed status is no proof: an unserved host answers 404)
      { req: get(plainHost, '/status/500'), expect: { status: 500 } },
      {
        req: get(errorsHost, '/status/503?x=1', { headers: { Accept: 'text/html' } }),
        expect: {
          status: 200,
          service: 'echo-b',
          path: '/',
          backendHeaders: {
            'X-Code': '503',
            'X-Format': 'text/html',
            'X-Original-Uri': '/status/503?x=1',
            'X-Namespace': 'nginx-conformance',
            'X-Ingress-Name': 'custom-errors',
            'X-Service-Name': 'httpbun',
            'X-Service-Port': '80',
          },
        },
      },
      { req: get(errorsHost, '/status/404'), expect: { status: 200, service: 'echo-b' } },
      { req: get(errorsHost, '/status/418'), expect: { status: 418 } },
      { req: get(plainHost, '/status/503'), expect: { status: 404 } },
    ],
  },
];
