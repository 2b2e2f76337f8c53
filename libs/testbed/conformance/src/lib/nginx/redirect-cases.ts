import { get, host, ingress, TLS_SECRET, type NginxCase } from './cases.js';

const tlsHost = host('ssl-redirect');
const noRedirect = host('ssl-redirect-off');
const force = host('force-ssl');
const perm = host('permanent');
const permCode = host('permanent-code');
const temp = host('temporal');
const appRoot = host('app-root');
const www = host('from-www');
const wwwTls = host('from-www-tls');
const toWww = host('to-www');
const keepSlash = host('preserve-slash');
const dropSlash = host('preserve-slash-off');

/** An Ingress for `h` whose TLS entry also names `www.h` (ingress-nginx's e2e TLS case). */
function wwwTlsIngress() {
  const ing = ingress('from-www-tls', wwwTls, [['/']], { 'from-to-www-redirect': 'true' });
  const spec = ing['spec'] as Record<string, unknown>;
  return {
    ...ing,
    spec: { ...spec, tls: [{ hosts: [wwwTls, `www.${wwwTls}`], secretName: TLS_SECRET }] },
  };
}

/** Redirects: ssl-redirect, force-ssl-redirect, permanent/temporal redirects, app-root. */
export const REDIRECT_CASES: readonly NginxCase[] = [
  {
    // ssl-redirect is on by default for a host with TLS; the trailing "/" of the URI is dropped
    // (e2e force-ssl-redirect: GET / → Location https://host) unless preserve-trailing-slash
    name: 'ssl-redirect: a TLS host redirects HTTP to HTTPS with 308 by default',
    annotations: ['ssl-redirect'],
    objects: [ingress('ssl-redirect', tlsHost, [['/']], {}, { tls: true })],
    steps: [
      {
        req: get(tlsHost, '/'),
        expect: { status: 308, headers: { location: `https://${tlsHost}` } },
      },
      {
        req: get(tlsHost, '/some/path?q=1'),
        expect: { status: 308, headers: { location: `https://${tlsHost}/some/path?q=1` } },
      },
      {
        req: get(tlsHost, '/secure', { https: true }),
        expect: { status: 200, service: 'echo', path: '/secure' },
      },
    ],
  },
  {
    name: 'ssl-redirect: "false" serves a TLS host over HTTP too',
    annotations: ['ssl-redirect'],
    objects: [
      ingress('ssl-redirect-off', noRedirect, [['/']], { 'ssl-redirect': 'false' }, { tls: true }),
    ],
    steps: [
      { req: get(noRedirect, '/plain'), expect: { status: 200, service: 'echo', path: '/plain' } },
      { req: get(noRedirect, '/tls', { https: true }), expect: { status: 200, path: '/tls' } },
    ],
  },
  {
    name: 'force-ssl-redirect: a host without TLS redirects HTTP to HTTPS with 308',
    annotations: ['force-ssl-redirect'],
    objects: [ingress('force-ssl', force, [['/']], { 'force-ssl-redirect': 'true' })],
    steps: [
      { req: get(force, '/'), expect: { status: 308, headers: { location: `https://${force}` } } },
      {
        req: get(force, '/a/b?x=y'),
        expect: { status: 308, headers: { location: `https://${force}/a/b?x=y` } },
      },
    ],
  },
  {
    name: 'permanent-redirect: 301 to the URL, the backend never reached',
    annotations: ['permanent-redirect'],
    objects: [
      ingress('permanent', perm, [['/something']], {
        'permanent-redirect': 'http://redirect.example.com',
      }),
    ],
    steps: [
      {
        req: get(perm, '/something'),
        expect: { status: 301, headers: { location: 'http://redirect.example.com' } },
      },
    ],
  },
  {
    name: 'permanent-redirect-code: the redirect answers with the code given',
    annotations: ['permanent-redirect', 'permanent-redirect-code'],
    objects: [
      ingress('permanent-code', permCode, [['/something']], {
        'permanent-redirect': 'http://redirect.example.com',
        'permanent-redirect-code': '308',
      }),
    ],
    steps: [
      {
        req: get(permCode, '/something'),
        expect: { status: 308, headers: { location: 'http://redirect.example.com' } },
      },
    ],
  },
  {
    name: 'temporal-redirect: 302 to the URL',
    annotations: ['temporal-redirect'],
    objects: [
      ingress('temporal', temp, [['/']], { 'temporal-redirect': 'https://www.example.com/away' }),
    ],
    steps: [
      {
        req: get(temp, '/'),
        expect: { status: 302, headers: { location: 'https://www.example.com/away' } },
      },
    ],
  },
  {
    name: 'app-root: "/" redirects to the application root with 302, other paths are served',
    annotations: ['app-root'],
    objects: [ingress('app-root', appRoot, [['/']], { 'app-root': '/foo' })],
    steps: [
      {
        req: get(appRoot, '/'),
        expect: { status: 302, headers: { location: `http://${appRoot}/foo` } },
      },
      { req: get(appRoot, '/foo'), expect: { status: 200, service: 'echo', path: '/foo' } },
      { req: get(appRoot, '/bar'), expect: { status: 200, path: '/bar' } },
    ],
  },
  {
    // e2e fromtowwwredirect: GET www.<host>/foo → 308 Location http://<host>/foo
    name: 'from-to-www-redirect: www.<host> answers 308 to <host> with the request URI',
    annotations: ['from-to-www-redirect'],
    objects: [ingress('from-www', www, [['/']], { 'from-to-www-redirect': 'true' })],
    steps: [
      {
        req: get(`www.${www}`, '/foo'),
        expect: { status: 308, headers: { location: `http://${www}/foo` } },
      },
      {
        req: get(`www.${www}`, '/a/b?x=1'),
        expect: { status: 308, headers: { location: `http://${www}/a/b?x=1` } },
      },
      { req: get(www, '/foo'), expect: { status: 200, service: 'echo', path: '/foo' } },
    ],
  },
  {
    // the reverse: an Ingress for www.<host> gets <host> redirected to it
    name: 'from-to-www-redirect: <host> answers 308 to the www.<host> an Ingress serves',
    annotations: ['from-to-www-redirect'],
    objects: [ingress('to-www', `www.${toWww}`, [['/']], { 'from-to-www-redirect': 'true' })],
    steps: [
      {
        req: get(toWww, '/bar?q=2'),
        expect: { status: 308, headers: { location: `http://www.${toWww}/bar?q=2` } },
      },
      { req: get(`www.${toWww}`, '/bar'), expect: { status: 200, service: 'echo', path: '/bar' } },
    ],
  },
  {
    // e2e fromtowwwredirect over HTTPS: the redirect keeps the scheme (https://<host>/)
    name: 'from-to-www-redirect: over HTTPS www.<host> answers 308 to https://<host>/',
    annotations: ['from-to-www-redirect'],
    objects: [wwwTlsIngress()],
    steps: [
      { req: get(wwwTls, '/', { https: true }), expect: { status: 200, service: 'echo' } },
      {
        req: get(`www.${wwwTls}`, '/', { https: true, insecure: true }),
        expect: { status: 308, headers: { location: `https://${wwwTls}/` } },
      },
    ],
  },
  {
    // ingress-nginx's redirect_to_https drops a trailing "/" unless preserve-trailing-slash
    name: 'preserve-trailing-slash: the ssl-redirect Location keeps the trailing slash; without it the slash is dropped',
    annotations: ['preserve-trailing-slash', 'ssl-redirect'],
    objects: [
      ingress(
        'preserve-slash',
        keepSlash,
        [['/']],
        { 'preserve-trailing-slash': 'true' },
        { tls: true },
      ),
      ingress('preserve-slash-off', dropSlash, [['/']], {}, { tls: true }),
    ],
    steps: [
      // (the Ingress applied last first: once it is served, so is the other)
      {
        req: get(dropSlash, '/dir/'),
        expect: { status: 308, headers: { location: `https://${dropSlash}/dir` } },
      },
      {
        req: get(keepSlash, '/dir/'),
        expect: { status: 308, headers: { location: `https://${keepSlash}/dir/` } },
      },
      {
        req: get(keepSlash, '/'),
        expect: { status: 308, headers: { location: `https://${keepSlash}/` } },
      },
    ],
  },
];
