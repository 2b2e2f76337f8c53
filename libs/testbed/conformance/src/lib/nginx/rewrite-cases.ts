import { get, host, ingress, type NginxCase } from './cases.js';

const rw = host('rewrite');
const rwGroups = host('rewrite-groups');
const regex = host('use-regex');
const order = host('regex-order');
const longest = host('regex-longest');
const xfp = host('x-forwarded-prefix');
const noXfp = host('x-forwarded-prefix-empty');
const alias = host('alias');
const aliasOther = 'alias-other.nginx.test';
const vhost = host('upstream-vhost');

/** Rewrites and what the backend is told: rewrite-target, use-regex, x-forwarded-prefix, server-alias, upstream-vhost. */
export const REWRITE_CASES: readonly NginxCase[] = [
  {
    // nginx's rewrite replaces the whole URI and keeps the query
    name: 'rewrite-target: the backend sees the target path, the query kept',
    annotations: ['rewrite-target'],
    objects: [ingress('rewrite', rw, [['/something']], { 'rewrite-target': '/' })],
    steps: [
      { req: get(rw, '/something'), expect: { status: 200, service: 'echo', path: '/' } },
      { req: get(rw, '/something?q=1'), expect: { status: 200, path: '/?q=1' } },
    ],
  },
  {
    // the user guide's example: path /something(/|$)(.*), target /$2
    name: 'rewrite-target: capture groups of the path fill $1, $2',
    annotations: ['rewrite-target', 'use-regex'],
    objects: [
      ingress(
        'rewrite-groups',
        rwGroups,
        [['/something(/|$)(.*)', 'echo', 'ImplementationSpecific']],
        { 'use-regex': 'true', 'rewrite-target': '/$2' },
      ),
    ],
    steps: [
      { req: get(rwGroups, '/something/new'), expect: { status: 200, path: '/new' } },
      { req: get(rwGroups, '/something'), expect: { status: 200, path: '/' } },
      { req: get(rwGroups, '/something/'), expect: { status: 200, path: '/' } },
      { req: get(rwGroups, '/something/a/b'), expect: { status: 200, path: '/a/b' } },
    ],
  },
  {
    name: 'use-regex: paths are case-insensitive regular expressions anchored at the start',
    annotations: ['use-regex'],
    objects: [
      ingress(
        'use-regex',
        regex,
        [
          ['/foo/bar/[a-z]+', 'echo-b', 'ImplementationSpecific'],
          ['/', 'echo', 'Prefix'],
        ],
        { 'use-regex': 'true' },
      ),
    ],
    steps: [
      { req: get(regex, '/foo/bar/abc'), expect: { status: 200, service: 'echo-b' } },
      { req: get(regex, '/FOO/Bar/abc'), expect: { status: 200, service: 'echo-b' } },
      { req: get(regex, '/foo/bar/123'), expect: { status: 200, service: 'echo' } },
      { req: get(regex, '/x/foo/bar/abc'), expect: { status: 200, service: 'echo' } },
    ],
  },
  {
    // e2e rewrite "should use ~* location modifier if regex annotation is present": the regex of
    // one Ingress makes the host's plain paths regular expressions too
    name: 'use-regex: a regex on one Ingress of a host keeps its plain paths, the longer location first',
    annotations: ['use-regex', 'rewrite-target'],
    objects: [
      ingress('regex-order-plain', order, [['/foo']]),
      ingress('regex-order-regex', order, [['/foo.+', 'echo-b', 'ImplementationSpecific']], {
        'use-regex': 'true',
        'rewrite-target': '/new/backend',
      }),
    ],
    steps: [
      {
        req: get(order, '/foo/bar'),
        expect: { status: 200, service: 'echo-b', path: '/new/backend' },
      },
      { req: get(order, '/foo'), expect: { status: 200, service: 'echo', path: '/foo' } },
    ],
  },
  {
    // e2e rewrite "should fail to use longest match for documented warning"
    name: 'use-regex: the longer regex location wins over a shorter plain path it also matches',
    annotations: ['use-regex', 'rewrite-target'],
    objects: [
      ingress('regex-longest-plain', longest, [['/foo/bar/bar']]),
      ingress(
        'regex-longest-regex',
        longest,
        [['/foo/bar/[a-z]{3}', 'echo-b', 'ImplementationSpecific']],
        { 'use-regex': 'true', 'rewrite-target': '/new/backend' },
      ),
    ],
    steps: [
      { req: get(longest, '/foo/bar/baz'), expect: { status: 200, service: 'echo-b' } },
      { req: get(longest, '/foo/bar/bar'), expect: { status: 200, path: '/new/backend' } },
    ],
  },
  {
    name: 'x-forwarded-prefix: the backend sees X-Forwarded-Prefix with the value given',
    annotations: ['x-forwarded-prefix', 'rewrite-target'],
    objects: [
      ingress('x-forwarded-prefix', xfp, [['/']], {
        'x-forwarded-prefix': '/test/value',
        'rewrite-target': '/foo',
      }),
    ],
    steps: [
      {
        req: get(xfp, '/'),
        expect: {
          status: 200,
          path: '/foo',
          backendHeaders: { 'X-Forwarded-Prefix': '/test/value' },
        },
      },
    ],
  },
  {
    name: 'x-forwarded-prefix: an empty value adds no header',
    annotations: ['x-forwarded-prefix'],
    objects: [
      ingress('x-forwarded-prefix-empty', noXfp, [['/']], {
        'x-forwarded-prefix': '',
        'rewrite-target': '/foo',
      }),
    ],
    steps: [
      {
        req: get(noXfp, '/'),
        expect: { status: 200, path: '/foo', backendHeaders: { 'X-Forwarded-Prefix': null } },
      },
    ],
  },
  {
    name: 'server-alias: the alias host is served by the same rules, the Host kept',
    annotations: ['server-alias'],
    objects: [ingress('alias', alias, [['/']], { 'server-alias': aliasOther })],
    steps: [
      {
        req: get(aliasOther, '/x'),
        expect: { status: 200, service: 'echo', backendHost: aliasOther },
      },
      { req: get(alias, '/x'), expect: { status: 200, backendHost: alias } },
      { req: get('not-an-alias.nginx.test', '/x'), expect: { status: 404 } },
    ],
  },
  {
    name: 'upstream-vhost: the backend sees the Host given',
    annotations: ['upstream-vhost'],
    objects: [
      ingress('upstream-vhost', vhost, [['/']], { 'upstream-vhost': 'upstreamvhost.bar.com' }),
    ],
    steps: [
      {
        req: get(vhost, '/v'),
        expect: { status: 200, service: 'echo', path: '/v', backendHost: 'upstreamvhost.bar.com' },
      },
    ],
  },
];
