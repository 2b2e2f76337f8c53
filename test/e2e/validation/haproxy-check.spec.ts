import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_STORAGE_DIRS,
  HaproxyChecker,
  emptyOutputs,
  formatProblem,
  validateOutputs,
  type RenderedOutputs,
} from '#validation';
import { describeForMajors } from '#testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCertificate } from '../haproxy/fixtures.js';

const cfg = (backendExtra = '') => `global
  log stdout format raw local0
defaults
  mode http
  timeout connect 1s
  timeout client 1s
  timeout server 1s
frontend f
  bind "\${POD_IP}:80"
  bind "\${POD_IP}:443" ssl crt-list /etc/haproxy/general/certs.list
  use_backend %[req.hdr(host),lower,map(/etc/haproxy/maps/hosts.map,be_default)]
backend be_default
  balance roundrobin
  errorfile 503 /etc/haproxy/general/503.http
${backendExtra}  server s1 127.0.0.1:8080
`;

describeForMajors(['2.6', '3.0'], 'validation with the real haproxy -c', (haproxy) => {
  let base: string;
  let outputs: RenderedOutputs;
  let checker: HaproxyChecker;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'haptic-validation-e2e-'));
    const { cert, key } = makeCertificate('one.example.com');
    outputs = {
      ...emptyOutputs(cfg()),
      maps: { 'hosts.map': 'one.example.com be_default\n' },
      files: { '503.http': 'HTTP/1.0 503 Service Unavailable\r\n\r\nsorry\r\n' },
      sslCertificates: { 'one.pem': cert + key },
      crtLists: { 'certs.list': '/etc/haproxy/ssl/one.pem [alpn h2,http/1.1] one.example.com\n' },
    };
    checker = new HaproxyChecker({
      binary: haproxy.bin,
      timeoutMs: 20_000,
      env: { POD_IP: '127.0.0.1' },
    });
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const opts = () => ({ dirs: DEFAULT_STORAGE_DIRS, checker, tmpBase: base });

  it('accepts a render with a map, an error file, a certificate and a crt-list', async () => {
    const result = await validateOutputs(outputs, opts());
    expect(result.problems.map(formatProblem)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.haproxy.ran).toBe(true);
    expect(readdirSync(base)).toEqual([]); // the throw-away tree is gone
  });

  it('traces a checker complaint to the snippet line that produced it', async () => {
    const broken = { ...outputs, haproxyConfig: cfg('  balanse roundrobin\n') };
    const templates = {
      'haproxy.cfg': 'global\n  log stdout format raw local0\n{% render_glob "backend-" %}',
      'backend-default':
        'backend be_default\n  balance roundrobin\n  balanse roundrobin\n  server s1 {{ addr }}',
    };
    const result = await validateOutputs(broken, { ...opts(), templates });
    expect(result.valid).toBe(false);
    const messages = result.problems.map(formatProblem);
    expect(messages[0]).toMatch(
      /^haproxy\.cfg:15 \(probably from template "backend-default" line 3\): unknown keyword 'balanse' in 'backend' section/,
    );
    expect(messages.join('\n')).not.toMatch(/haptic-check-|\(\d+\)|NOTICE/);
  });

  it('reports a certificate the checker cannot load by its HAProxy-side path, not the temp tree', async () => {
    const badCert = {
      ...outputs,
      sslCertificates: {
        'one.pem': '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      },
    };
    const result = await validateOutputs(badCert, opts());
    expect(result.valid).toBe(false);
    const text = result.problems.map(formatProblem).join('\n');
    expect(text).toContain('/etc/haproxy/ssl/one.pem');
    expect(text).not.toContain(base);
  });

  it('runs lua-load only when the config allows it', async () => {
    const lua = {
      ...outputs,
      haproxyConfig: cfg().replace(
        'global\n',
        'global\n  lua-load /etc/haproxy/general/hello.lua\n',
      ),
      files: {
        ...outputs.files,
        'hello.lua': 'core.register_service("hello", "http", function(applet) end)\n',
      },
    };
    const refused = await validateOutputs(lua, opts());
    expect(refused.haproxy.ran).toBe(false);
    expect(refused.problems.map(formatProblem)).toEqual([
      "haproxy.cfg:2: 'lua-load /etc/haproxy/general/hello.lua' is refused: it loads and runs Lua code (allow with spec.validation.allowedDirectives: [lua-load])",
    ]);
    const allowed = await validateOutputs(lua, { ...opts(), allowedDirectives: ['lua-load'] });
    expect(allowed.haproxy.ran).toBe(true);
    expect(allowed.problems.map(formatProblem)).toEqual([]);
  });
});
