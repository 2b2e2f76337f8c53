import { get, host, ingress, type NginxCase, type Step } from './cases.js';

const ACAO = 'access-control-allow-origin';
const DEFAULT_METHODS = 'GET, PUT, POST, DELETE, PATCH, OPTIONS';
const DEFAULT_HEADERS =
  'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization';

const defaults = host('cors');
const custom = host('cors-custom');
const list = host('cors-list');
const wild = host('cors-wildcard');
const starList = host('cors-star-list');
const blank = host('cors-blank');
const schemes = host('cors-schemes');

/** A GET with `Origin: origin` whose answer echoes that origin (allowed) or has no ACAO (not allowed). */
const origin = (h: string, o: string, allowed: boolean): Step => ({
  req: get(h, '/', { headers: { Origin: o } }),
  expect: { status: 200, headers: { [ACAO]: allowed ? o : null } },
});

/** enable-cors and the cors-* annotations, as ingress-nginx's CORS block answers. */
export const CORS_CASES: readonly NginxCase[] = [
  {
    name: 'enable-cors: a preflight gets 204 with the default CORS headers, a GET the same headers',
    annotations: ['enable-cors'],
    objects: [ingress('cors', defaults, [['/']], { 'enable-cors': 'true' })],
    steps: [
      {
        req: get(defaults, '/', {
          method: 'OPTIONS',
          headers: { Origin: 'https://any.example', 'Access-Control-Request-Method': 'PUT' },
        }),
        expect: {
          status: 204,
          headers: {
            [ACAO]: '*',
            'access-control-allow-methods': DEFAULT_METHODS,
            'access-control-allow-headers': DEFAULT_HEADERS,
            'access-control-allow-credentials': 'true',
            'access-control-max-age': '1728000',
          },
        },
      },
      {
        req: get(defaults, '/page', { headers: { Origin: 'https://any.example' } }),
        expect: {
          status: 200,
          service: 'echo',
          path: '/page',
          headers: {
            [ACAO]: '*',
            'access-control-allow-methods': DEFAULT_METHODS,
            'access-control-allow-credentials': 'true',
          },
        },
      },
    ],
  },
  {
    name: 'cors-allow-methods, -headers, -max-age, -expose-headers, -credentials "false"',
    annotations: [
      'enable-cors',
      'cors-allow-methods',
      'cors-allow-headers',
      'cors-max-age',
      'cors-expose-headers',
      'cors-allow-credentials',
    ],
    objects: [
      ingress('cors-custom', custom, [['/']], {
        'enable-cors': 'true',
        'cors-allow-methods': 'POST, GET',
        'cors-allow-headers': 'DNT, User-Agent',
        'cors-max-age': '200',
        'cors-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader',
        'cors-allow-credentials': 'false',
      }),
    ],
    steps: [
      {
        req: get(custom, '/', { method: 'OPTIONS', headers: { Origin: 'https://a.example' } }),
        expect: {
          status: 204,
          headers: {
            'access-control-allow-methods': 'POST, GET',
            'access-control-allow-headers': 'DNT, User-Agent',
            'access-control-max-age': '200',
            'access-control-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader',
            'access-control-allow-credentials': null,
          },
        },
      },
      {
        req: get(custom, '/', { headers: { Origin: 'https://a.example' } }),
        expect: {
          status: 200,
          headers: {
            'access-control-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader',
            'access-control-allow-credentials': null,
          },
        },
      },
    ],
  },
  {
    name: 'cors-allow-origin: a listed origin is echoed back, scheme and port included; others get none',
    annotations: ['enable-cors', 'cors-allow-origin'],
    objects: [
      ingress('cors-list', list, [['/']], {
        'enable-cors': 'true',
        'cors-allow-origin': 'https://origin.cors.com:8080, https://origin2.cors.com',
      }),
    ],
    steps: [
      origin(list, 'https://origin.cors.com:8080', true),
      origin(list, 'https://origin2.cors.com', true),
      origin(list, 'http://no.origin.com', false),
      origin(list, 'https://origin.cors.com', false),
      origin(list, 'http://origin2.cors.com', false),
    ],
  },
  {
    name: 'cors-allow-origin: a wildcard matches one subdomain level, its port required',
    annotations: ['enable-cors', 'cors-allow-origin'],
    objects: [
      ingress('cors-wildcard', wild, [['/']], {
        'enable-cors': 'true',
        'cors-allow-origin': 'http://*.origin.cors.com, http://*.origin.com:8080',
      }),
    ],
    steps: [
      origin(wild, 'http://foo.origin.cors.com', true),
      origin(wild, 'http://abc.origin.com:8080', true),
      origin(wild, 'http://bar.foo.origin.cors.com', false),
      origin(wild, 'http://abc.origin.com', false),
    ],
  },
  {
    name: 'cors-allow-origin: "*" in the list, or a blank list, allows every origin with "*"',
    annotations: ['enable-cors', 'cors-allow-origin'],
    objects: [
      ingress('cors-star-list', starList, [['/']], {
        'enable-cors': 'true',
        'cors-allow-origin': '*, foo.bar.com',
      }),
      ingress('cors-blank', blank, [['/']], {
        'enable-cors': 'true',
        'cors-allow-origin': '      ',
      }),
    ],
    steps: [
      {
        req: get(blank, '/', { headers: { Origin: 'http://origin.com' } }),
        expect: { status: 200, headers: { [ACAO]: '*' } },
      },
      { req: get(starList, '/'), expect: { status: 200, headers: { [ACAO]: '*' } } },
      {
        req: get(starList, '/', { headers: { Origin: 'http://other.example' } }),
        expect: { status: 200, headers: { [ACAO]: '*' } },
      },
    ],
  },
  {
    name: 'cors-allow-origin: other schemes match, blank and trailing list items are ignored',
    annotations: ['enable-cors', 'cors-allow-origin'],
    objects: [
      ingress('cors-schemes', schemes, [['/']], {
        'enable-cors': 'true',
        'cors-allow-origin':
          'test://localhost, tauri://localhost:3000, https://origin-123.cors.com:8080,   ,https://origin-321.cors.com:8080,',
      }),
    ],
    steps: [
      origin(schemes, 'test://localhost', true),
      origin(schemes, 'tauri://localhost:3000', true),
      origin(schemes, 'https://origin-321.cors.com:8080', true),
      origin(schemes, 'https://origin-999.cors.com:8080', false),
    ],
  },
];
