import { generateCertificate, type TlsMaterial } from '#testbed/kube-sim';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkRuntimeDelta, runtimeDelta } from './runtime-delta.js';

const cfg = (server: string, extra = '') =>
  `global\n  daemon\ndefaults\n  mode http\n  timeout client 5s\n  timeout server 5s\n  timeout connect 5s\n` +
  `frontend fe\n  bind :8080\n  default_backend be\n${extra}` +
  `backend be\n  balance roundrobin\n  server s1 ${server} check\n`;

const outputs = (over: {
  config?: string;
  maps?: Record<string, string>;
  certs?: Record<string, string>;
  files?: Record<string, string>;
}) => ({
  haproxyConfig: over.config ?? cfg('10.0.0.1:80'),
  maps: over.maps ?? { 'hosts.map': 'a.example be\n' },
  files: over.files ?? {},
  sslCertificates: over.certs ?? {},
  crtLists: {},
});

describe('runtimeDelta', () => {
  it('is the server, map and certificate changes when nothing needs a reload', () => {
    const d = runtimeDelta(
      outputs({}),
      outputs({ config: cfg('10.0.0.2:81'), maps: { 'hosts.map': 'b.example be\n' } }),
    );
    expect(d?.servers).toEqual([
      expect.objectContaining({ kind: 'server.set', backend: 'be', server: 's1' }),
    ]);
    expect(d?.maps).toEqual(['hosts.map']);
  });

  it('is undefined for a structural change, a new map or a changed general file', () => {
    const before = outputs({});
    expect(
      runtimeDelta(before, outputs({ config: cfg('10.0.0.1:80', '  option forwardfor\n') })),
    ).toBeUndefined();
    expect(
      runtimeDelta(before, outputs({ maps: { 'hosts.map': 'a.example be\n', 'x.map': '' } })),
    ).toBeUndefined();
    expect(runtimeDelta(outputs({ files: { e: '1' } }), outputs({ files: { e: '2' } }))).toBe(
      undefined,
    );
  });

  it('leaves a PEM without a private key (a CA bundle) to the whole check', async () => {
    const ca = await generateCertificate({ commonName: 'ca' });
    expect(runtimeDelta(outputs({}), outputs({ certs: { 'ca.pem': ca.cert } }))).toBeUndefined();
  });
});

describe('checkRuntimeDelta', () => {
  let a: TlsMaterial;
  let b: TlsMaterial;
  beforeAll(async () => {
    [a, b] = await Promise.all([
      generateCertificate({ commonName: 'a.example' }),
      generateCertificate({ commonName: 'b.example' }),
    ]);
  });

  const check = (after: ReturnType<typeof outputs>) => {
    const d = runtimeDelta(outputs({}), after);
    if (!d) throw new Error('expected a runtime-only delta');
    return checkRuntimeDelta(d, after).map(
      (p) => `${p.output}${p.line ? `:${p.line}` : ''}: ${p.reason}`,
    );
  };

  it('passes what the runtime API takes', () => {
    expect(
      check(
        outputs({
          config: cfg('10.0.0.9:8080'),
          maps: { 'hosts.map': '# hosts\nb.example be\n' },
          certs: { 'a.pem': `${a.cert}\n${a.key}` },
        }),
      ),
    ).toEqual([]);
  });

  it('names the map line without a value', () => {
    expect(check(outputs({ maps: { 'hosts.map': 'a.example be\nb.example\n' } }))).toEqual([
      'map:hosts.map:2: map line "b.example" has no value',
    ]);
  });

  it('names a server port out of range', () => {
    expect(check(outputs({ config: cfg('10.0.0.1:70000') }))).toEqual([
      'haproxy.cfg: server be/s1: port 70000 is not within 1-65535',
    ]);
  });

  it('refuses a key that does not match its certificate, and an unreadable one', () => {
    expect(check(outputs({ certs: { 'a.pem': `${a.cert}\n${b.key}` } }))).toEqual([
      'cert:a.pem: the private key does not match the certificate',
    ]);
    const broken = b.key.replace(/\n[A-Za-z0-9+/]{8}/, '\n!!!!!!!!');
    expect(check(outputs({ certs: { 'a.pem': `${a.cert}\n${broken}` } }))[0]).toMatch(
      /^cert:a\.pem: unreadable certificate or key/,
    );
  });
});
