import { get, host, ingress, type CaseTools, type NginxCase } from './cases.js';
import type { Answer, Req, Target } from './http.js';
import { cookieLine, cookieValue, podCounts, showCounts, statusCounts } from './judge.js';

const allowed = host('allowlist');
const notAllowed = host('allowlist-other');
const denied = host('denylist');
const notDenied = host('denylist-other');
const body = host('body-size');
const tls = host('backend-https');
const sticky = host('affinity');
const stickyAttrs = host('affinity-attributes');
const cookieAttrs = host('affinity-domain');
const cookiePlain = host('affinity-plain');
const twoPaths = host('affinity-two-paths');
const rr = host('load-balance');
const tlsLower = host('backend-https-lower');
const conns = host('limit-connections');
const rps = host('limit-rps');
const exempt = host('limit-whitelist');

/** Every answer of `n` requests sent one after another to one HAProxy pod. */
async function series(t: CaseTools, pod: Target, r: (i: number) => Req, n: number) {
  const out: Answer[] = [];
  for (let i = 0; i < n; i++) out.push(await t.call(pod, r(i)));
  return out;
}

/** With the cookie the first answer set, 10 more requests all reach the pod that set it; without, both pods answer. */
async function pinned(t: CaseTools): Promise<string | undefined> {
  for (const pod of t.pods) {
    const first = await t.call(pod, get(sticky, '/'));
    const line = cookieLine(first, 'SERVERID');
    if (!line || !first.seen)
      return `no SERVERID cookie or echo answer: ${first.status} ${JSON.stringify(first.cookies)}`;
    const cookie = `SERVERID=${cookieValue(line)}`;
    const again = await series(t, pod, () => get(sticky, '/', { headers: { Cookie: cookie } }), 10);
    const pods = podCounts(again);
    if (pods.size !== 1 || !pods.has(first.seen.pod))
      return `with ${cookie} (set by ${first.seen.pod}) the answers came from ${showCounts(pods)}`;
    const free = podCounts(await series(t, pod, () => get(sticky, '/'), 10));
    if (free.size < 2)
      return `without the cookie 10 answers came from ${showCounts(free)} (2 pods ready)`;
  }
  return undefined;
}

/** The Expires attribute of a Set-Cookie line is within two minutes of now + `seconds`. */
async function expiresIn(t: CaseTools, seconds: number): Promise<string | undefined> {
  for (const pod of t.pods) {
    const a = await t.call(pod, get(stickyAttrs, '/something'));
    const line = cookieLine(a, 'ExpiresCookie') ?? '';
    const m = /expires=([^;]+)/i.exec(line);
    const at = m?.[1] ? Date.parse(m[1].replace(/-/g, ' ')) : Number.NaN;
    if (!Number.isFinite(at)) return `no readable Expires in ${JSON.stringify(line)}`;
    const off = Math.abs(at - (Date.now() + seconds * 1000));
    if (off > 120_000)
      return `Expires ${m?.[1]} is ${Math.round(off / 1000)} s away from now + ${seconds} s`;
  }
  return undefined;
}

/** 10 requests through one HAProxy pod reach both echo pods, neither fewer than 3 times. */
async function spread(t: CaseTools): Promise<string | undefined> {
  for (const pod of t.pods) {
    const counts = podCounts(await series(t, pod, (i) => get(rr, `/${i}`), 10));
    const low = [...counts.values()].some((n) => n < 3);
    if (counts.size !== 2 || counts.has('?') || low)
      return `10 requests through ${pod.address} were answered by ${showCounts(counts)}`;
  }
  return undefined;
}

/** 5 concurrent slow requests (httpbun /delay/3) with limit-connections 2: two 200s and three 503s. */
async function connectionLimit(t: CaseTools): Promise<string | undefined> {
  for (const pod of t.pods) {
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.call(pod, get(conns, `/delay/3?n=${i}`))),
    );
    const counts = statusCounts(answers);
    if (counts.get(200) !== 2 || counts.get(503) !== 3)
      return `5 concurrent requests through ${pod.address}: statuses ${showCounts(counts)}, expected 2×200 and 3×503`;
  }
  return undefined;
}

/** 30 rapid requests with limit-rps 1 (burst 5 × 1): the first served, some 503, nothing else. */
async function rateLimit(t: CaseTools): Promise<string | undefined> {
  for (const pod of t.pods) {
    const answers = await series(t, pod, (i) => get(rps, `/${i}`), 30);
    const counts = statusCounts(answers);
    const other = [...counts.keys()].filter((s) => s !== 200 && s !== 503);
    if (answers[0]?.status !== 200 || !counts.get(503) || other.length > 0)
      return `30 rapid requests through ${pod.address}: first ${answers[0]?.status}, statuses ${showCounts(counts)}`;
  }
  return undefined;
}

/** 30 rapid requests with limit-rps 1 from a client in limit-whitelist: every one served. */
async function exempted(t: CaseTools): Promise<string | undefined> {
  for (const pod of t.pods) {
    const counts = statusCounts(await series(t, pod, (i) => get(exempt, `/${i}`), 30));
    if (counts.get(200) !== 30)
      return `30 rapid requests from a listed client through ${pod.address}: statuses ${showCounts(counts)}`;
  }
  return undefined;
}

/** Source ranges, body size, backend protocol, session affinity, balancing and limits. */
export const TRAFFIC_CASES: readonly NginxCase[] = [
  {
    // the suite's client connects from loopback (127.0.0.1)
    name: 'allowlist-source-range / whitelist-source-range: a client in a range is served, others get 403',
    annotations: ['allowlist-source-range', 'whitelist-source-range'],
    objects: [
      ingress('allowlist', allowed, [['/']], {
        'allowlist-source-range': '10.0.0.0/8, 127.0.0.0/8',
      }),
      ingress('allowlist-other', notAllowed, [['/']], {
        'whitelist-source-range': '18.0.0.0/8, 56.0.0.0/8',
      }),
    ],
    steps: [
      { req: get(notAllowed, '/'), expect: { status: 403 } },
      { req: get(allowed, '/'), expect: { status: 200, service: 'echo' } },
    ],
  },
  {
    name: 'denylist-source-range: a client in a range gets 403, others are served',
    annotations: ['denylist-source-range'],
    objects: [
      ingress('denylist', denied, [['/']], { 'denylist-source-range': '127.0.0.0/8' }),
      ingress('denylist-other', notDenied, [['/']], {
        'denylist-source-range': '18.0.0.0/8, 56.0.0.1',
      }),
    ],
    steps: [
      { req: get(denied, '/'), expect: { status: 403 } },
      { req: get(notDenied, '/'), expect: { status: 200, service: 'echo' } },
    ],
  },
  {
    name: 'proxy-body-size: a larger request body gets 413, a smaller one reaches the backend',
    annotations: ['proxy-body-size'],
    objects: [ingress('body-size', body, [['/']], { 'proxy-body-size': '1k' })],
    steps: [
      {
        req: get(body, '/big', { method: 'POST', body: 'x'.repeat(4096) }),
        expect: { status: 413 },
      },
      {
        req: get(body, '/small', { method: 'POST', body: 'x'.repeat(512) }),
        expect: { status: 200, service: 'echo', path: '/small' },
      },
    ],
  },
  {
    name: 'backend-protocol: HTTPS reaches the backend over TLS',
    annotations: ['backend-protocol'],
    objects: [ingress('backend-https', tls, [['/', 'echo-tls']], { 'backend-protocol': 'HTTPS' })],
    steps: [
      {
        req: get(tls, '/over-tls'),
        expect: { status: 200, service: 'echo-tls', path: '/over-tls', backendTls: true },
      },
    ],
  },
  {
    name: 'backend-protocol: the value is read case-insensitively ("https")',
    annotations: ['backend-protocol'],
    objects: [
      ingress('backend-https-lower', tlsLower, [['/', 'echo-tls']], {
        'backend-protocol': 'https',
      }),
    ],
    steps: [
      { req: get(tlsLower, '/'), expect: { status: 200, service: 'echo-tls', backendTls: true } },
    ],
  },
  {
    name: 'affinity: cookie with session-cookie-name pins a client to the pod that set it',
    annotations: ['affinity', 'session-cookie-name'],
    objects: [
      ingress('affinity', sticky, [['/']], {
        affinity: 'cookie',
        'session-cookie-name': 'SERVERID',
      }),
    ],
    steps: [{ req: get(sticky, '/'), expect: { status: 200, cookie: { name: 'SERVERID' } } }],
    script: pinned,
  },
  {
    name: 'affinity: the cookie takes the Ingress path, session-cookie-expires and -max-age',
    annotations: [
      'affinity',
      'session-cookie-name',
      'session-cookie-expires',
      'session-cookie-max-age',
    ],
    objects: [
      ingress('affinity-attributes', stickyAttrs, [['/something']], {
        affinity: 'cookie',
        'session-cookie-name': 'ExpiresCookie',
        'session-cookie-expires': '172800',
        'session-cookie-max-age': '259200',
      }),
    ],
    steps: [
      {
        req: get(stickyAttrs, '/something'),
        expect: {
          status: 200,
          cookie: {
            name: 'ExpiresCookie',
            contains: ['Path=/something', 'Max-Age=259200', 'Expires='],
          },
        },
      },
    ],
    script: (t) => expiresIn(t, 172800),
  },
  {
    name: 'affinity: session-cookie-domain, -secure and -path set those attributes, none without them',
    annotations: [
      'affinity',
      'session-cookie-domain',
      'session-cookie-secure',
      'session-cookie-path',
    ],
    objects: [
      ingress('affinity-plain', cookiePlain, [['/']], {
        affinity: 'cookie',
        'session-cookie-name': 'NoDomainCookie',
      }),
      ingress('affinity-domain', cookieAttrs, [['/']], {
        affinity: 'cookie',
        'session-cookie-name': 'DomainCookie',
        'session-cookie-domain': 'foo.bar',
        'session-cookie-secure': 'true',
        'session-cookie-path': '/foo/bar',
      }),
    ],
    steps: [
      {
        req: get(cookieAttrs, '/'),
        expect: {
          status: 200,
          cookie: {
            name: 'DomainCookie',
            contains: ['Domain=foo.bar', '; Secure', 'Path=/foo/bar'],
          },
        },
      },
      {
        req: get(cookiePlain, '/'),
        expect: {
          status: 200,
          cookie: { name: 'NoDomainCookie', lacks: ['; Domain', '; Secure'] },
        },
      },
    ],
  },
  {
    name: 'affinity: each path of the Ingress sets the cookie with its own Path',
    annotations: ['affinity'],
    objects: [
      ingress('affinity-two-paths', twoPaths, [['/something'], ['/somewhereelse']], {
        affinity: 'cookie',
        'session-cookie-name': 'SERVERID',
      }),
    ],
    steps: [
      {
        req: get(twoPaths, '/something'),
        expect: { status: 200, cookie: { name: 'SERVERID', contains: ['Path=/something'] } },
      },
      {
        req: get(twoPaths, '/somewhereelse'),
        expect: { status: 200, cookie: { name: 'SERVERID', contains: ['Path=/somewhereelse'] } },
      },
    ],
  },
  {
    name: 'load-balance: round_robin spreads requests over every pod of the Service',
    annotations: ['load-balance'],
    objects: [ingress('load-balance', rr, [['/']], { 'load-balance': 'round_robin' })],
    steps: [{ req: get(rr, '/'), expect: { status: 200, service: 'echo' } }],
    script: spread,
  },
  {
    name: 'limit-connections: concurrent connections over the limit get 503',
    annotations: ['limit-connections'],
    objects: [
      ingress('limit-connections', conns, [['/', 'httpbun']], { 'limit-connections': '2' }),
    ],
    steps: [{ req: get(conns, '/status/200'), expect: { status: 200 } }],
    script: connectionLimit,
  },
  {
    name: 'limit-rps: requests over the rate and its burst get 503',
    annotations: ['limit-rps'],
    objects: [ingress('limit-rps', rps, [['/']], { 'limit-rps': '1' })],
    steps: [{ req: get(rps, '/'), expect: { status: 200, service: 'echo' } }],
    script: rateLimit,
  },
  {
    // the suite's client connects from loopback (127.0.0.1)
    name: 'limit-whitelist: a client in the listed ranges is never rate limited',
    annotations: ['limit-whitelist', 'limit-rps'],
    objects: [
      ingress('limit-whitelist', exempt, [['/']], {
        'limit-rps': '1',
        'limit-whitelist': '10.0.0.0/8, 127.0.0.0/8',
      }),
    ],
    steps: [{ req: get(exempt, '/'), expect: { status: 200, service: 'echo' } }],
    script: exempted,
  },
];
