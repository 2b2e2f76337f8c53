import { describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { compileTemplates } from '../compile.js';
import { render } from '../render.js';
import { specOf } from '../spec-fixture.test.js';
import { webBackend } from './backend-fixture.test.js';
import type { RenderResult } from '../types.js';

// `ingress_backend` through a render, as the library's ingress-backend snippet prints it (no
// Ingress in scope: the filter names the backend's Ingress itself when it refuses a value).
const TEMPLATE =
  '{%- for backend in backends -%}' +
  '{%- assign a = backend | ingress_backend: extra, resources.secrets -%}' +
  'backend {{ backend.name }}{{ a.lines }}\n  # opts[{{ a.opts }}] slots[{{ a.slots }}] cookie[{{ a.cookie }}]{{ a.userlist }}\n' +
  '{%- endfor -%}';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const secret = (name: string, data: Record<string, string>) => ({
  kind: 'Secret',
  metadata: { namespace: 'apps', name },
  data,
});

function run(
  annotations: Record<string, string> | undefined,
  extra: Record<string, unknown> = {},
  secrets: object[] = [],
): RenderResult {
  const spec = specOf({ haproxy: TEMPLATE, extra });
  const watchedResources = {
    ...spec.watchedResources,
    secrets: { ...spec.watchedResources['ingresses']!, resources: 'secrets', apiVersion: 'v1' },
  };
  const { ing, backends } = webBackend(annotations);
  const compiled = compileTemplates({ ...spec, watchedResources }, { providers: [backends] });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  const indexBy = ['metadata.namespace', 'metadata.name'];
  const snapshot = snapshotOf(
    { ingresses: indexBy, secrets: indexBy },
    { ingresses: [ing], secrets },
  );
  return render(compiled.value, snapshot);
}

function output(...args: Parameters<typeof run>): string {
  const r = run(...args);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  if (r.quarantined.length > 0) throw new Error(JSON.stringify(r.quarantined));
  return r.outputs.haproxyConfig;
}

function refusal(...args: Parameters<typeof run>): string {
  const r = run(...args);
  const q = r.quarantined[0] ?? (r.ok ? undefined : { problem: r.problems[0] });
  if (!q?.problem) throw new Error(`expected a refusal, got ${JSON.stringify(r)}`);
  return q.problem.message;
}

describe('ingress_backend', () => {
  it('prints a shared backend from extra alone (no annotations read)', () => {
    expect(output(undefined)).toBe(
      'backend svc_apps_echo_80\n  balance roundrobin\n  # opts[] slots[2] cookie[]',
    );
    expect(output(undefined, { balance: 'source', server_slots: 4 })).toBe(
      'backend svc_apps_echo_80\n  balance source\n  hash-type consistent\n  # opts[] slots[8] cookie[]',
    );
  });

  it('prints every annotation of an annotated backend, in the library order', () => {
    const annotations = {
      'haproxy-haptic.org/timeout-server': '5s',
      'haproxy-haptic.org/ssl-redirect': 'true',
      'haproxy-haptic.org/allowlist-source-range': '10.0.0.0/8, 192.168.1.1',
      'haproxy-haptic.org/rate-limit-rps': '10',
      'haproxy-haptic.org/auth-secret': 'users',
      'haproxy-haptic.org/redirect-to': 'https://example.com/x',
      'haproxy-haptic.org/request-headers': 'X-A: 1\nX-P:  50%"$ ',
      'haproxy-haptic.org/affinity': 'cookie',
      'haproxy-haptic.org/backend-protocol': 'h2',
      'haproxy-haptic.org/backend-tls': 'true',
      'haproxy-haptic.org/backend-tls-sni': 'Api.Example.com',
      'haproxy-haptic.org/balance': 'leastconn',
      'haproxy-haptic.org/server-slots': '16',
    };
    const users = secret('users', { auth: b64('alice:$apr1$abc$def\n') });
    expect(output(annotations, {}, [users])).toBe(
      [
        'backend ing_apps_web_echo_80',
        '  balance leastconn',
        '  timeout server 5s',
        '  http-request redirect scheme https code 308 if !{ ssl_fc }',
        '  http-request deny deny_status 403 if !{ src 10.0.0.0/8 192.168.1.1 }',
        '  stick-table type ipv6 size 100k expire 10s store http_req_rate(1s)',
        '  http-request track-sc0 src',
        '  http-request deny deny_status 429 if { sc_http_req_rate(0) gt 10 }',
        '  http-request auth realm "Restricted" unless { http_auth(ul_ing_apps_web_echo_80) }',
        '  http-request redirect location "https://example.com/x" code 302',
        '  http-request set-header X-A "1"',
        '  http-request set-header X-P "50%%\\"\\$"',
        '  cookie HAPTIC_SERVER insert indirect nocache httponly',
        '  # opts[ alpn h2 ssl verify none sni str(api.example.com)] slots[16] cookie[HAPTIC_SERVER]',
        '',
        'userlist ul_ing_apps_web_echo_80',
        '  user alice password $apr1$abc$def',
      ].join('\n'),
    );
  });

  it('registers the CA of backend TLS and verifies against it', () => {
    const annotations = {
      'haproxy-haptic.org/backend-tls': 'true',
      'haproxy-haptic.org/backend-tls-ca-secret': 'ca',
    };
    const missing = refusal(annotations);
    expect(missing).toBe(
      'Ingress apps/web: annotation haproxy-haptic.org/backend-tls-ca-secret: Secret ca with a PEM ca.crt not found',
    );
  });

  it.each([
    [{ 'haproxy-haptic.org/nope': '1' }, 'nope is not a known annotation'],
    [{ 'haproxy-haptic.org/timeout-connect': '5x' }, 'timeout-connect: 5x is not a duration'],
    [{ 'haproxy-haptic.org/ssl-redirect': 'yes' }, 'ssl-redirect: must be true or false'],
    [
      { 'haproxy-haptic.org/denylist-source-range': ',' },
      'denylist-source-range: lists no address',
    ],
    [{ 'haproxy-haptic.org/auth-secret': 'gone' }, 'auth-secret: Secret gone not found'],
    [{ 'haproxy-haptic.org/request-headers': 'X Bad: 1' }, 'request-headers: each line must be'],
    [{ 'haproxy-haptic.org/affinity': 'ip' }, 'affinity: must be cookie or none'],
    [{ 'haproxy-haptic.org/balance': 'bogus' }, 'balance: must be roundrobin'],
    [{ 'haproxy-haptic.org/server-slots': '2000' }, 'server-slots: must be a whole number'],
    [{ 'haproxy-haptic.org/backend-snippet': 'x' }, 'backend-snippet: snippets are disabled'],
  ])('refuses %j, naming the Ingress and the annotation', (annotations, message) => {
    const m = refusal(annotations);
    expect(m).toContain('Ingress apps/web: annotation haproxy-haptic.org/');
    expect(m).toContain(message);
  });

  it('quarantines the Ingress of a refused annotation, though the template has no Ingress in scope', () => {
    const r = run({ 'haproxy-haptic.org/balance': 'bogus' });
    expect(r.ok).toBe(true);
    expect(r.quarantined.map((q) => [q.object.kind, q.object.name, q.problem.code])).toEqual([
      ['Ingress', 'web', 'fail'],
    ]);
  });

  it('keeps the lines of multi-line annotations as written (as the Liquid version did)', () => {
    // a line of spaces is not blank to it, and snippet lines keep their indentation
    expect(refusal({ 'haproxy-haptic.org/request-headers': 'X-A: 1\n  \nX-B: 2' })).toContain(
      'request-headers: each line must be Name: value',
    );
    const snippet = { 'haproxy-haptic.org/backend-snippet': 'option httpchk\n\n  http-check send' };
    expect(output(snippet, { allow_snippets: true })).toContain(
      '\n  option httpchk\n    http-check send\n',
    );
    expect(
      refusal({ 'haproxy-haptic.org/backend-snippet': 'frontend x' }, { allow_snippets: true }),
    ).toContain('backend-snippet: may not open a section (frontend)');
  });

  it('refuses control characters as the output escaper does, attributed to the Ingress', () => {
    const r = run({ 'haproxy-haptic.org/response-headers': 'X-T: a\tb' });
    expect(r.quarantined.map((q) => [q.object.name, q.problem.code])).toEqual([
      ['web', 'invalid-value'],
    ]);
    expect(r.quarantined[0]?.problem.message).toContain('header_value');
  });
});
