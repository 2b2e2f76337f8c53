import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import got from 'got';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { compileTemplates, render } from '#render';
import {
  checkConfig,
  describeForMajors,
  freePort,
  startHaproxy,
  type HaproxyUnderTest,
} from '#testbed/testing';

// HAProxy's own reading of what the escaper writes: a configuration rendered by the real
// renderer from Ingresses whose annotation carries the expansion family (log-format, environment,
// sample fetches, converters) and HAProxy's word syntax, put by bare {{ }} and typed filters into
// arguments of each kind; `haproxy -c` accepts it, and real requests to a real HAProxy show that
// every word reads as the literal value: a `return lf-string` body (unquoted, in double and in
// single quotes), a header set by `set-header` echoed back, a `return … hdr` response header, a
// `redirect location`, a `-m str` ACL pattern and a `haproxy_regex` pattern that must match the
// value. Had any `%[…]`, `%{…}`, `${…}` or `$NAME` stayed live, HAProxy would have sent its
// environment (HOME, PATH) or a request header instead.

const VALUES = [
  'ok%[env(HOME)]',
  '%[req.hdr(cookie)]',
  '%{+Q}[env(PATH)]',
  '${HOME}',
  '$HOME',
  '"$HOME"',
  "'${HOME}'",
  '%ci:%cp',
  '50%',
  '%%',
  'a\\b',
  'a\\x41',
  'x # y',
  'a b',
  'q"uo\'te',
  '%[str(a)]%{Q}o',
  'back\\ slash$ "q" #c %s',
  '$',
  '${',
  'a,b)c(',
  '{ }',
  '\\"',
  'p%25q',
];

const V = 'ing.metadata.annotations["example/route-tag"]';
const N = 'ing.metadata.name';

const TEMPLATE = `global
  master-worker
  stats socket ADMIN_SOCKET mode 600 level admin
defaults
  mode http
  timeout connect 1s
  timeout client 5s
  timeout server 5s
frontend fe
  bind 127.0.0.1:{{ extra.port }}
{%- for ing in resources.ingresses %}
  http-request return status 200 content-type text/plain lf-string {{ ${V} }} if { path /lf/{{ ${N} }} }
  http-request return status 200 content-type text/plain lf-string "{{ ${V} }}" if { path /lfq/{{ ${N} }} }
  http-request return status 200 content-type text/plain lf-string '{{ ${V} }}' if { path /lfs/{{ ${N} }} }
  http-request return status 200 content-type text/plain lf-string {{ ${V} | haproxy_quote }} if { path /lfh/{{ ${N} }} }
  http-request return status 204 hdr x-set {{ ${V} | header_value }} if { path /hdr/{{ ${N} }} }
  http-request redirect location /r/{{ ${V} }} code 302 if { path /redir/{{ ${N} }} }
  http-request set-header X-Echo {{ ${V} }} if { path /sh/{{ ${N} }} }
  http-request return status 200 content-type text/plain string matched if { path /acl/{{ ${N} }} } { req.fhdr(x-tag) -m str {{ ${V} }} }
  http-request return status 200 content-type text/plain string matched if { path /re/{{ ${N} }} } { req.fhdr(x-tag) -m reg ^{{ ${V} | haproxy_regex }}$ }
{%- endfor %}
  http-request return status 200 content-type text/plain lf-string %[req.fhdr(x-echo)] if { path_beg /sh/ }
  http-request return status 404 content-type text/plain string nomatch
`;

function renderConfig(port: number): string {
  const compiled = compileTemplates({
    haproxyConfig: { template: TEMPLATE },
    maps: {},
    files: {},
    sslCertificates: {},
    templateSnippets: {},
    templatingSettings: { extraContext: { port } },
    watchedResources: {
      ingresses: {
        apiVersion: 'networking.k8s.io/v1',
        resources: 'ingresses',
        indexBy: ['metadata.namespace', 'metadata.name'],
        store: 'full',
        enableValidationWebhook: false,
      },
    },
    dataplane: {
      port: 5555,
      scheme: 'http',
      minDeploymentInterval: '500ms',
      driftPreventionInterval: '60s',
      deploymentTimeout: '30s',
      maxParallel: 10,
      mapsDir: '/etc/haproxy/maps',
      sslCertsDir: '/etc/haproxy/ssl',
      generalStorageDir: '/etc/haproxy/general',
      configFile: '/etc/haproxy/haproxy.cfg',
    },
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  const ingresses = VALUES.map((v, i) => ({
    kind: 'Ingress',
    metadata: { namespace: 'ns', name: `v${i}`, annotations: { 'example/route-tag': v } },
  }));
  const r = render(
    compiled.value,
    snapshotOf({ ingresses: ['metadata.namespace', 'metadata.name'] }, { ingresses }),
  );
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  // every value is written (none refused): each is literal in every argument above
  expect(r.quarantined).toEqual([]);
  return r.outputs.haproxyConfig;
}

describeForMajors(
  ['2.6', '3.0'],
  'HAProxy reads each escaped word as the literal value',
  (haproxy) => {
    let port: number;
    let h: HaproxyUnderTest;
    let dir: string;
    const url = (path: string) => `http://127.0.0.1:${port}${path}`;
    const get = (path: string, headers: Record<string, string> = {}) =>
      got(url(path), {
        headers,
        throwHttpErrors: false,
        followRedirect: false,
        retry: { limit: 0 },
      });

    beforeAll(async () => {
      port = await freePort();
      dir = mkdtempSync(join(tmpdir(), 'haptic-escaper-'));
      const config = renderConfig(port);
      const file = join(dir, 'haproxy.cfg');
      writeFileSync(file, config.replace('ADMIN_SOCKET', join(dir, 'admin.sock')));
      const check = await checkConfig(haproxy.bin, file);
      if (check.code !== 0)
        throw new Error(`haproxy -c refused the rendered config:\n${check.output}`);
      h = await startHaproxy({
        bin: haproxy.bin,
        config: ({ adminSocket }) => config.replace('ADMIN_SOCKET', adminSocket),
      });
    });
    afterAll(async () => {
      await h?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it.each(VALUES.map((v, i) => [v, i] as const))('%s', async (value, i) => {
      for (const route of ['lf', 'lfq', 'lfs', 'lfh']) {
        const res = await get(`/${route}/v${i}`, { cookie: 'secret=1' });
        expect([route, res.statusCode, res.body]).toEqual([route, 200, value]);
      }
      const hdr = await get(`/hdr/v${i}`);
      expect(hdr.statusCode).toBe(204);
      expect(hdr.headers['x-set']).toBe(value);
      const redirect = await get(`/redir/v${i}`);
      expect(redirect.statusCode).toBe(302);
      expect(redirect.headers.location).toBe(`/r/${value}`);
      const echo = await get(`/sh/v${i}`, { cookie: 'secret=1' });
      expect(echo.body).toBe(value);
      for (const route of ['acl', 're']) {
        expect((await get(`/${route}/v${i}`, { 'x-tag': value })).body).toBe('matched');
        expect((await get(`/${route}/v${i}`, { 'x-tag': `${value}z` })).body).toBe('nomatch');
      }
    });
  },
);
