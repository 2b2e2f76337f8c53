import type { KubeObject } from '#testbed/kube-sim';
import { NS, get, host, ingress, type CaseTools, type NginxCase } from './cases.js';

// Basic authentication as ingress-nginx's auth annotations and its basic-auth example give it:
// 401 with `WWW-Authenticate: Basic realm="<realm>"` without or with wrong credentials, 200 with
// the right ones; a location whose Secret is missing answers 503. The hashes are crypt(3) test
// data for the passwords named beside them.
const FOO_BCRYPT = '$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK'; // s3cret
const BOB_SHA256 = '$5$saltsalt$OIdfjX.u4Y3SJ4I2bX8w5BMf1VAUhHABNUirScDzZi3'; // hunter2
const OLD_APR1 = '$apr1$abcdefgh$bGLO42WqKpmLoPH9uGWTg1'; // bar (not a crypt(3) hash)

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const basic = (user: string, password: string) => ({
  Authorization: `Basic ${b64(`${user}:${password}`)}`,
});

/** An Opaque Secret of the suite's namespace. */
function secret(name: string, data: Readonly<Record<string, string>>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: NS, name },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

const fileHost = host('auth-file');
const REALM = 'Authentication Required - foo';
const challenge = { 'WWW-Authenticate': `Basic realm="${REALM}"` };
const fileAuth = { 'auth-type': 'basic', 'auth-secret': 'basic-auth', 'auth-realm': REALM };
const htpasswd = (...lines: string[]) => secret('basic-auth', { auth: `${lines.join('\n')}\n` });

/** A user added to the Secret can log in once the change is served (a reload: userlists are static). */
async function secretChange(t: CaseTools): Promise<string | undefined> {
  await t.apply([htpasswd(`foo:${FOO_BCRYPT}`, `bob:${BOB_SHA256}`)]);
  const why = await t.served({
    req: get(fileHost, '/private', { headers: basic('bob', 'hunter2') }),
    expect: { status: 200, service: 'echo' },
  });
  if (why) return `a user added to the Secret: ${why}`;
  return t.check({
    req: get(fileHost, '/private', { headers: basic('foo', 's3cret') }),
    expect: { status: 200, service: 'echo' },
  });
}

const digestHost = host('auth-digest');

/** `auth-type: digest` is refused by the webhook, or left unserved: never served open. */
async function digestRefused(t: CaseTools): Promise<string | undefined> {
  const digest = ingress('auth-digest', digestHost, [['/']], {
    'auth-type': 'digest',
    'auth-secret': 'digest-auth',
  });
  const refused = await t.apply([digest]).then(
    () => undefined,
    (e: unknown) => (e instanceof Error ? e.message : String(e)),
  );
  if (refused !== undefined)
    return /digest/i.test(refused) ? undefined : `refused without naming digest: ${refused}`;
  // accepted by the API: a later Ingress being served shows the render has seen the digest one
  await t.apply([ingress('auth-digest-after', digestHost, [['/after', 'echo-b']])]);
  const why = await t.served({ req: get(digestHost, '/after'), expect: { service: 'echo-b' } });
  if (why) return `a later Ingress on the host: ${why}`;
  return t.check({ req: get(digestHost, '/'), expect: { status: 404 } });
}

/** Basic authentication (auth-type, auth-secret, auth-secret-type, auth-realm). */
export const AUTH_CASES: readonly NginxCase[] = [
  {
    name: 'auth-type basic (auth-file): right credentials 200, wrong or missing 401 with the realm, other Ingresses on the host not asked',
    annotations: ['auth-type', 'auth-secret', 'auth-realm'],
    objects: [
      htpasswd(`foo:${FOO_BCRYPT}`, 'not a user line', `old:${OLD_APR1}`),
      ingress('auth-public', fileHost, [['/', 'echo-b']]),
      ingress('auth-private', fileHost, [['/private']], fileAuth),
    ],
    steps: [
      {
        req: get(fileHost, '/private/x', { headers: basic('foo', 's3cret') }),
        expect: { status: 200, service: 'echo', path: '/private/x' },
      },
      { req: get(fileHost, '/private'), expect: { status: 401, headers: challenge } },
      {
        req: get(fileHost, '/private', { headers: basic('foo', 'wrong') }),
        expect: { status: 401, headers: challenge },
      },
      {
        req: get(fileHost, '/private', { headers: basic('nobody', 's3cret') }),
        expect: { status: 401, headers: challenge },
      },
      // an apr1 line is left out (HAProxy cannot check it): that user stays out, never let in
      {
        req: get(fileHost, '/private', { headers: basic('old', 'bar') }),
        expect: { status: 401 },
      },
      {
        req: get(fileHost, '/'),
        expect: { status: 200, service: 'echo-b', headers: { 'WWW-Authenticate': null } },
      },
    ],
    script: secretChange,
  },
  {
    name: 'auth-secret-type auth-map: each key a user, its value the hash',
    annotations: ['auth-type', 'auth-secret', 'auth-secret-type', 'auth-realm'],
    objects: [
      secret('map-auth', { bob: BOB_SHA256 }),
      ingress('auth-map', host('auth-map'), [['/']], {
        'auth-type': 'basic',
        'auth-secret': `${NS}/map-auth`,
        'auth-secret-type': 'auth-map',
        'auth-realm': 'map',
      }),
    ],
    steps: [
      {
        req: get(host('auth-map'), '/', { headers: basic('bob', 'hunter2') }),
        expect: { status: 200, service: 'echo' },
      },
      {
        req: get(host('auth-map'), '/', { headers: basic('bob', 'hunter3') }),
        expect: { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="map"' } },
      },
      { req: get(host('auth-map'), '/'), expect: { status: 401 } },
    ],
  },
  {
    name: 'auth-secret missing: the locations answer 503, never served open',
    annotations: ['auth-type', 'auth-secret'],
    objects: [
      ingress('auth-open', host('auth-missing'), [['/open', 'echo-b']]),
      ingress('auth-missing', host('auth-missing'), [['/']], {
        'auth-type': 'basic',
        'auth-secret': 'no-such-secret',
      }),
    ],
    steps: [
      { req: get(host('auth-missing'), '/'), expect: { status: 503 } },
      {
        req: get(host('auth-missing'), '/', { headers: basic('foo', 's3cret') }),
        expect: { status: 503 },
      },
      { req: get(host('auth-missing'), '/open'), expect: { status: 200, service: 'echo-b' } },
    ],
  },
  {
    name: 'auth-type digest: refused (HAProxy has no digest authentication)',
    annotations: ['auth-type'],
    objects: [ingress('auth-digest-marker', digestHost, [['/marker', 'echo-b']])],
    steps: [{ req: get(digestHost, '/marker'), expect: { status: 200, service: 'echo-b' } }],
    script: digestRefused,
  },
];
