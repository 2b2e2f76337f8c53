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
import { describeForMajors } from '#testbed/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  describe('a large file checked in parts (spec.validation.maxServersPerCheck)', () => {
    // 40 backends of 2 servers beside be_default: parts of at most 10 server lines.
    const many = (broken?: number): string =>
      cfg() +
      Array.from(
        { length: 40 },
        (_, i) =>
          `backend svc_${i}\n  ${i === broken ? 'balanse' : 'balance'} roundrobin\n` +
          `  server srv1 10.0.${i}.1:80 weight 1\n  server srv2 0.0.0.0:1 weight 1 disabled\n`,
      ).join('');
    const parts = { maxServersPerCheck: 10 };

    it('accepts a valid file in one part with the frontends and eight batches', async () => {
      const result = await validateOutputs(
        { ...outputs, haproxyConfig: many() },
        { ...opts(), ...parts },
      );
      expect(result.problems.map(formatProblem)).toEqual([]);
      expect(result.valid).toBe(true);
      expect(result.haproxy.runs).toBe(9);
      const whole = await validateOutputs({ ...outputs, haproxyConfig: many() }, opts());
      expect([whole.valid, whole.haproxy.runs]).toEqual([true, 1]);
    });

    it('reports a mistake in a backend of a later batch at its line in the whole file', async () => {
      const text = many(33);
      const line = text.split('\n').indexOf('  balanse roundrobin') + 1;
      const result = await validateOutputs(
        { ...outputs, haproxyConfig: text },
        { ...opts(), ...parts },
      );
      expect(result.valid).toBe(false);
      expect(result.haproxy.runs).toBe(8); // part 1, then batches up to svc_33's (svc_30..svc_34)
      expect(result.problems.map(formatProblem)[0]).toMatch(
        new RegExp(`^haproxy\\.cfg:${line}: unknown keyword 'balanse' in 'backend' section`),
      );
      expect(readdirSync(base)).toEqual([]);
    });

    it('keeps a backend another proxy names with it, so references still resolve', async () => {
      // svc_5 tracks a server of svc_7; a missing server there must still be found.
      const text = many().replace(
        '  server srv1 10.0.5.1:80 weight 1',
        '  server srv1 10.0.5.1:80 weight 1 track svc_7/srv9',
      );
      const result = await validateOutputs(
        { ...outputs, haproxyConfig: text },
        { ...opts(), ...parts },
      );
      expect(result.valid).toBe(false);
      expect(result.problems.map(formatProblem).join('\n')).toMatch(/svc_7\/srv9|srv9/);
    });
  });
});
