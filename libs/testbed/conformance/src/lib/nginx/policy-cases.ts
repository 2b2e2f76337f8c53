import { setTimeout as pause } from 'node:timers/promises';
import type { KubeObject } from '#testbed/kube-sim';
import { NS, get, host, ingress, type CaseTools, type NginxCase } from './cases.js';
import type { Answer } from './http.js';
import { cookieLine, cookieValue, podCounts, showCounts, statusCounts } from './judge.js';

// Rate limits per minute, satisfy, and the affinity options, from ingress-nginx's annotation
// guide and its e2e annotation tests.
const rpm = host('limit-rpm');

/**
 * limit-rpm 2 with limit-burst-multiplier 1: 4 requests spaced more than a second apart (so a
 * per-second limit would pass them all) — the later ones get 503, nothing but 200 and 503.
 */
async function perMinute(t: CaseTools): Promise<string | undefined> {
  for (const pod of t.pods) {
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) {
      if (i > 0) await pause(1100); // the spacing is the input: slower than one per second
      answers.push(await t.call(pod, get(rpm, `/${i}`)));
    }
    const counts = statusCounts(answers);
    const other = [...counts.keys()].filter((s) => s !== 200 && s !== 503);
    if (answers[3]?.status !== 503 || other.length > 0)
      return `4 requests a second apart through ${pod.address}: ${answers.map((a) => a.status).join(', ')} (${showCounts(counts)}), expected the last 503`;
  }
  return undefined;
}

const b64 = (v: string) => Buffer.from(v, 'utf8').toString('base64');
// a crypt(3) bcrypt hash of `s3cret` (test data, as the basic-auth cases use)
const HTPASSWD = 'foo:$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK\n';
const SECRET: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: NS, name: 'satisfy-auth' },
  type: 'Opaque',
  data: { auth: b64(HTPASSWD) },
};
const creds = { headers: { Authorization: `Basic ${b64('foo:s3cret')}` } };
const auth = { 'auth-type': 'basic', 'auth-secret': 'satisfy-auth', 'auth-realm': 'satisfy' };
// the suite's client connects from loopback (127.0.0.1)
const anyIn = host('satisfy-any-in');
const anyOut = host('satisfy-any-out');
const allOut = host('satisfy-all-out');

const sameSite = host('affinity-samesite');
const persistent = host('affinity-persistent');
const ua = (agent: string) => ({ headers: { 'User-Agent': agent } });
const MODERN = ua(
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
);
const OLD_CHROME = ua(
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/60.0.3112.90 Safari/537.36',
);
const IOS_12 = ua(
  'Mozilla/5.0 (iPhone; CPU iPhone OS 12_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.0 Mobile/15E148 Safari/604.1',
);
const MAC_SAFARI = ua(
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.0 Safari/605.1.15',
);
const MAC_CHROME = ua(
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
);
const ssn = (contains: boolean) => ({
  status: 200,
  cookie: {
    name: 'SSNCookie',
    ...(contains ? { contains: ['SameSite=None'] } : { lacks: ['SameSite'] }),
  },
});

/** With the cookie the first answer set, 10 more requests all reach the pod that set it. */
async function persists(t: CaseTools): Promise<string | undefined> {
  for (const pod of t.pods) {
    const first = await t.call(pod, get(persistent, '/'));
    const line = cookieLine(first, 'PERSIST');
    if (!line || !first.seen) return `no PERSIST cookie or echo answer: ${first.status}`;
    const cookie = { headers: { Cookie: `PERSIST=${cookieValue(line)}` } };
    const again: Answer[] = [];
    for (let i = 0; i < 10; i++) again.push(await t.call(pod, get(persistent, '/', cookie)));
    const pods = podCounts(again);
    if (pods.size !== 1 || !pods.has(first.seen.pod))
      return `with ${cookie.headers.Cookie} (set by ${first.seen.pod}) the answers came from ${showCounts(pods)}`;
  }
  return undefined;
}

/** limit-rpm, satisfy and the affinity options. */
export const POLICY_CASES: readonly NginxCase[] = [
  {
    name: 'limit-rpm: requests over the per-minute rate (x limit-burst-multiplier) get 503, even a second apart',
    annotations: ['limit-rpm', 'limit-burst-multiplier'],
    objects: [
      ingress('limit-rpm', rpm, [['/']], { 'limit-rpm': '2', 'limit-burst-multiplier': '1' }),
    ],
    steps: [{ req: get(rpm, '/'), expect: { status: 200, service: 'echo' } }],
    script: perMinute,
  },
  {
    name: 'satisfy any: a client in whitelist-source-range needs no credentials, others need them (401 without); all needs both (403)',
    annotations: ['satisfy'],
    objects: [
      SECRET,
      ingress('satisfy-any-in', anyIn, [['/']], {
        ...auth,
        satisfy: 'any',
        'whitelist-source-range': '127.0.0.0/8',
      }),
      ingress('satisfy-any-out', anyOut, [['/']], {
        ...auth,
        satisfy: 'any',
        'whitelist-source-range': '10.0.0.0/8',
      }),
      ingress('satisfy-all-out', allOut, [['/']], {
        ...auth,
        'whitelist-source-range': '10.0.0.0/8',
      }),
    ],
    // the last object applied is the readiness marker
    steps: [
      { req: get(allOut, '/', creds), expect: { status: 403 } },
      { req: get(anyOut, '/', creds), expect: { status: 200, service: 'echo' } },
      { req: get(anyIn, '/'), expect: { status: 200, service: 'echo' } },
      {
        req: get(anyOut, '/'),
        expect: { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="satisfy"' } },
      },
      {
        req: get(anyOut, '/', { headers: { Authorization: `Basic ${b64('foo:wrong')}` } }),
        expect: { status: 401 },
      },
    ],
  },
  {
    name: 'session-cookie-conditional-samesite-none: SameSite=None is left out for the clients ingress-nginx lists, kept for others',
    annotations: ['session-cookie-conditional-samesite-none', 'session-cookie-samesite'],
    objects: [
      ingress('affinity-samesite', sameSite, [['/']], {
        affinity: 'cookie',
        'session-cookie-name': 'SSNCookie',
        'session-cookie-samesite': 'None',
        'session-cookie-conditional-samesite-none': 'true',
      }),
    ],
    steps: [
      { req: get(sameSite, '/', MODERN), expect: ssn(true) },
      { req: get(sameSite, '/', OLD_CHROME), expect: ssn(false) },
      { req: get(sameSite, '/', IOS_12), expect: ssn(false) },
      { req: get(sameSite, '/', MAC_SAFARI), expect: ssn(false) },
      { req: get(sameSite, '/', MAC_CHROME), expect: ssn(true) },
    ],
  },
  {
    name: 'affinity-mode persistent keeps a client on its pod; session-cookie-change-on-failure: a cookie naming no live endpoint gets a new one',
    annotations: ['affinity-mode', 'session-cookie-change-on-failure'],
    objects: [
      ingress('affinity-persistent', persistent, [['/']], {
        affinity: 'cookie',
        'affinity-mode': 'persistent',
        'session-cookie-name': 'PERSIST',
        'session-cookie-change-on-failure': 'true',
      }),
    ],
    steps: [
      { req: get(persistent, '/'), expect: { status: 200, cookie: { name: 'PERSIST' } } },
      {
        req: get(persistent, '/', { headers: { Cookie: 'PERSIST=gone' } }),
        expect: {
          status: 200,
          service: 'echo',
          cookie: { name: 'PERSIST', lacks: ['PERSIST=gone'] },
        },
      },
    ],
    script: persists,
  },
];
