import type { KubeObject } from '#testbed/kube-sim';
import { ECHO_POD_PORT, waitFor } from '#testbed/stack';
import { NS, get, host, ingress, type CaseTools, type NginxCase } from './cases.js';

// External authentication as ingress-nginx's e2e test/e2e/annotations/auth.go judges it: the
// auth service is a pod of the suite reached by its address (as the e2e tests use the httpbun
// pod's IP), the echo's /auth route (status by path or X-Auth-Status, X-User/X-Email on 2xx, a
// cookie by path) or httpbun's /basic-auth route. An auth Ingress needs the pod's address, so each
// case applies it from its script, after a marker Ingress on the same host is served.

const BASIC = { Authorization: `Basic ${Buffer.from('user:password').toString('base64')}` };

/**
 * Applies `objects`, then runs the steps: the first step of each host waits until it is served on
 * every HAProxy pod (that host's Ingress is in the configuration), the others run once.
 */
async function applyAndCheck(
  t: CaseTools,
  objects: readonly KubeObject[],
  steps: readonly Parameters<CaseTools['check']>[0][],
): Promise<string | undefined> {
  await t.apply(objects);
  const seen = new Set<string>();
  for (const s of steps) {
    const first = !seen.has(s.req.host);
    seen.add(s.req.host);
    const wrong = first ? await t.served(s) : await t.check(s);
    if (wrong) return wrong;
  }
  return undefined;
}

const statusHost = host('ext-auth');

async function statuses(t: CaseTools): Promise<string | undefined> {
  const auth = `http://${await t.podAddress('echo')}/auth`;
  const annotations = { 'auth-url': auth, 'auth-response-headers': 'X-User, X-Email' };
  const as = (status: string) => ({ 'X-Auth-Status': status });
  return applyAndCheck(
    t,
    [ingress('ext-auth-private', statusHost, [['/']], annotations)],
    [
      {
        req: get(statusHost, '/app?x=1', { headers: { 'X-User': 'mallory' } }),
        expect: {
          status: 200,
          service: 'echo',
          path: '/app?x=1',
          backendHeaders: { 'X-User': 'alice', 'X-Email': 'alice@example.com' },
        },
      },
      { req: get(statusHost, '/', { headers: as('401') }), expect: { status: 401 } },
      { req: get(statusHost, '/', { headers: as('403') }), expect: { status: 403 } },
      { req: get(statusHost, '/', { headers: as('500') }), expect: { status: 500 } },
      // another Ingress of the host is not asked
      {
        req: get(statusHost, '/public', { headers: as('401') }),
        expect: { status: 200, service: 'echo-b' },
      },
    ],
  );
}

const signinHost = host('ext-auth-signin');
const paramHost = host('ext-auth-param');

async function signin(t: CaseTools): Promise<string | undefined> {
  const deny = `http://${await t.podAddress('echo')}/auth/401`;
  return applyAndCheck(
    t,
    [
      ingress('ext-auth-signin', signinHost, [['/']], {
        'auth-url': deny,
        'auth-signin': 'http://$host/auth/start',
      }),
      ingress('ext-auth-param', paramHost, [['/']], {
        'auth-url': deny,
        'auth-signin': 'https://login.nginx.test/start?x=1',
        'auth-signin-redirect-param': 'return_to',
      }),
    ],
    [
      {
        req: get(signinHost, '/?a=b&c=d'),
        expect: {
          status: 302,
          headers: {
            Location: `http://${signinHost}/auth/start?rd=http://${signinHost}%2F%3Fa%3Db%26c%3Dd`,
          },
        },
      },
      {
        req: get(paramHost, '/p'),
        expect: {
          status: 302,
          headers: {
            Location: `https://login.nginx.test/start?x=1&return_to=http://${paramHost}%2Fp`,
          },
        },
      },
    ],
  );
}

const cookieHost = host('ext-auth-cookie');
const alwaysHost = host('ext-auth-always');

async function cookies(t: CaseTools): Promise<string | undefined> {
  const auth = `http://${await t.podAddress('echo')}/auth/cookies/set/alma/armud`;
  const cookie = { 'auth-url': auth };
  const always = { ...cookie, 'auth-always-set-cookie': 'true' };
  return applyAndCheck(
    t,
    [
      ingress('ext-auth-cookie', cookieHost, [['/']], cookie),
      ingress('ext-auth-always', alwaysHost, [['/']], always),
    ],
    [
      {
        req: get(cookieHost, '/?a=b&c=d'),
        expect: { status: 200, service: 'echo', cookie: { name: 'alma', contains: ['armud'] } },
      },
      // the upstream's error: no cookie by default, the cookie with auth-always-set-cookie
      { req: get(cookieHost, '/status/503'), expect: { status: 503, cookie: null } },
      {
        req: get(alwaysHost, '/status/503'),
        expect: { status: 503, cookie: { name: 'alma', contains: ['armud'] } },
      },
    ],
  );
}

const headersHost = host('ext-auth-headers');

async function proxyHeaders(t: CaseTools): Promise<string | undefined> {
  const auth = `http://${await t.podAddress('echo')}/auth`;
  // the echo's /auth answers the headers named in X-Auth-Echo as X-Seen-<name>
  const seen = { 'auth-url': auth, 'auth-response-headers': 'X-Seen-X-Group' };
  const asks = { 'X-Auth-Echo': 'X-Group', 'X-Team': 'blue', 'X-Group': 'forged' };
  return applyAndCheck(
    t,
    [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: NS, name: 'ext-auth-headers' },
        data: { 'X-Group': 'team-$http_x_team' },
      },
      ingress('ext-auth-headers', headersHost, [['/']], {
        ...seen,
        'auth-proxy-set-headers': 'ext-auth-headers',
      }),
      ingress('ext-auth-headers-missing', headersHost, [['/missing']], {
        ...seen,
        'auth-proxy-set-headers': 'no-such-configmap',
      }),
    ],
    [
      // (the Ingress applied last first: once it is served, so is the other)
      // a missing ConfigMap denies the location, as ingress-nginx does
      { req: get(headersHost, '/missing', { headers: asks }), expect: { status: 503 } },
      {
        req: get(headersHost, '/', { headers: asks }),
        expect: { status: 200, service: 'echo', backendHeaders: { 'X-Seen-X-Group': 'team-blue' } },
      },
    ],
  );
}

const methodHost = host('ext-auth-method');
const BACK = 'https://app.nginx.test/back?to=1';

/** auth-method and auth-request-redirect, as the auth service saw them (copied back by auth-response-headers). */
async function methodAndRedirect(t: CaseTools): Promise<string | undefined> {
  const auth = `http://${await t.podAddress('echo')}/auth`;
  const copy = {
    'auth-url': auth,
    'auth-response-headers': 'X-Seen-Method, X-Seen-Auth-Request-Redirect',
  };
  return applyAndCheck(
    t,
    [
      ingress('ext-auth-method', methodHost, [['/post']], {
        ...copy,
        'auth-method': 'POST',
        'auth-request-redirect': BACK,
      }),
      ingress('ext-auth-method-default', methodHost, [['/get']], copy),
    ],
    [
      // (the Ingress applied last first: once it is served, so is the other)
      {
        req: get(methodHost, '/get?q=1'),
        expect: {
          status: 200,
          service: 'echo',
          backendHeaders: { 'X-Seen-Method': 'GET', 'X-Seen-Auth-Request-Redirect': '/get?q=1' },
        },
      },
      {
        req: get(methodHost, '/post'),
        expect: {
          status: 200,
          service: 'echo',
          backendHeaders: { 'X-Seen-Method': 'POST', 'X-Seen-Auth-Request-Redirect': BACK },
        },
      },
    ],
  );
}

const CACHE_APP = 'ext-auth-cache';
const thisHost = host('ext-auth-this');
const thatHost = host('ext-auth-that');
const goneHost = host('ext-auth-gone');

/** An echo pod of its own (no Service: only auth-url reaches it), deleted mid-case. */
const cacheAuthPod: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { namespace: NS, name: CACHE_APP, labels: { app: CACHE_APP } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: CACHE_APP } },
    template: {
      metadata: { labels: { app: CACHE_APP } },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'httpbun',
            image: 'registry.k8s.io/ingress-nginx/httpbun:v1.2.9',
            env: [
              { name: 'HTTPBUN_BIND', value: `0.0.0.0:${ECHO_POD_PORT}` },
              { name: 'SERVICE_NAME', value: CACHE_APP },
            ],
            ports: [{ name: 'http', containerPort: ECHO_POD_PORT }],
            readinessProbe: {
              httpGet: { path: '/status/200', port: ECHO_POD_PORT },
              periodSeconds: 1,
            },
          },
        ],
      },
    },
  },
};

async function cache(t: CaseTools): Promise<string | undefined> {
  await t.apply([cacheAuthPod]);
  const address = await waitFor(
    `a ready pod of ${NS}/${CACHE_APP}`,
    () => t.podAddress(CACHE_APP).catch(() => undefined),
    60_000,
    250,
  );
  const url = `http://${address}/basic-auth/user/password`;
  const cached = {
    'auth-url': url,
    'auth-signin': 'http://$host/auth/start',
    'auth-cache-key': 'fixed',
    'auth-cache-duration': '200 201 401 30m',
  };
  const ingresses = [
    ingress('ext-auth-foo-this', thisHost, [['/foo']], cached),
    ingress('ext-auth-bar-this', thisHost, [['/bar']], cached),
    ingress('ext-auth-foo-that', thatHost, [['/foo']], cached),
    ingress('ext-auth-gone', goneHost, [['/']], { 'auth-url': url }),
  ];
  const signedIn = { req: get(thisHost, '/foo', { headers: BASIC }), expect: { status: 200 } };
  // the last Ingress applied first: once it is served, so are the others, and no reload (which
  // empties HAProxy's cache) follows the signed-in request that fills the cache of each pod
  const before = await applyAndCheck(t, ingresses, [
    { req: get(goneHost, '/', { headers: BASIC }), expect: { status: 200, service: 'echo' } },
    signedIn,
  ]);
  if (before) return `while the auth service runs: ${before}`;
  // the auth service is deleted: an Ingress without cache answers 500 once it is gone
  await t.remove([cacheAuthPod]);
  const gone = await t.served({
    req: get(goneHost, '/', { headers: BASIC }),
    expect: { status: 500 },
  });
  if (gone) return `after the auth service is deleted, without cache: ${gone}`;
  for (const [what, step] of [
    ['the cached location', signedIn],
    // nothing cached for another location of the server, nor for the location on another server
    [
      'another location',
      { req: get(thisHost, '/bar', { headers: BASIC }), expect: { status: 500 } },
    ],
    ['another server', { req: get(thatHost, '/foo', { headers: BASIC }), expect: { status: 500 } }],
  ] as const) {
    const why = await t.check(step);
    if (why) return `after the auth service is deleted, ${what}: ${why}`;
  }
  return undefined;
}

/**
 * A marker Ingress on each host of a case (the hosts are the case's own); the first one's step
 * is the case's readiness marker, and the script waits for each host its auth Ingresses add.
 */
const marker = (name: string, h: string, path = '/marker') => ingress(name, h, [[path, 'echo-b']]);
const markerStep = (h: string, path = '/marker') => ({
  req: get(h, path),
  expect: { status: 200, service: 'echo-b' },
});

/** External authentication (auth-url and its companions). */
export const EXTERNAL_AUTH_CASES: readonly NginxCase[] = [
  {
    name: 'auth-url: the service answering 200 lets through with auth-response-headers replacing the client values; 401, 403 and 500 answered as such; another Ingress on the host not asked',
    annotations: ['auth-url', 'auth-response-headers'],
    objects: [marker('ext-auth-public', statusHost, '/public')],
    steps: [markerStep(statusHost, '/public')],
    script: statuses,
  },
  {
    name: 'auth-signin: a 401 redirects (302) to the signin URL with rd=<original URL>, its host given as $host; auth-signin-redirect-param renames rd',
    annotations: ['auth-url', 'auth-signin', 'auth-signin-redirect-param'],
    objects: [
      marker('ext-auth-signin-marker', signinHost),
      marker('ext-auth-param-marker', paramHost),
    ],
    steps: [markerStep(signinHost)],
    script: signin,
  },
  {
    name: "auth-always-set-cookie: the auth service's Set-Cookie on the 200, not on the upstream's 503 unless annotated",
    annotations: ['auth-url', 'auth-always-set-cookie'],
    objects: [
      marker('ext-auth-cookie-marker', cookieHost),
      marker('ext-auth-always-marker', alwaysHost),
    ],
    steps: [markerStep(cookieHost)],
    script: cookies,
  },
  {
    name: "auth-proxy-set-headers: the ConfigMap's headers reach the auth service (variables expanded, the client's value replaced); a missing ConfigMap answers 503",
    annotations: ['auth-url', 'auth-response-headers', 'auth-proxy-set-headers'],
    objects: [marker('ext-auth-headers-marker', headersHost, '/marker')],
    steps: [markerStep(headersHost)],
    script: proxyHeaders,
  },
  {
    name: 'auth-cache-key: signed in after the auth service is deleted; denied (500) on another location and another server, and without cache',
    annotations: ['auth-url', 'auth-signin', 'auth-cache-key', 'auth-cache-duration'],
    objects: [marker('ext-auth-this-marker', thisHost)],
    steps: [markerStep(thisHost)],
    script: cache,
  },
  {
    name: 'auth-method and auth-request-redirect: the auth service is called with that method and gets that X-Auth-Request-Redirect; without them GET and the request URI',
    annotations: ['auth-url', 'auth-method', 'auth-request-redirect'],
    objects: [marker('ext-auth-method-marker', methodHost)],
    steps: [markerStep(methodHost)],
    script: methodAndRedirect,
  },
];
