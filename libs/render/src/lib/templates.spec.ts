import { describe, expect, it } from 'vitest';
import { compileTemplates } from './compile.js';
import { render } from './render.js';
import { snapshotOf } from '#index';
import { specOf } from './spec-fixture.test.js';
import type { RenderResult } from './types.js';

const ingress = (ns: string, name: string, annotations: Record<string, string> = {}): object => ({
  kind: 'Ingress',
  metadata: { namespace: ns, name, annotations },
});

function run(parts: Parameters<typeof specOf>[0], objects: object[] = []): RenderResult {
  const compiled = compileTemplates(specOf(parts));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  const snap = snapshotOf(
    { ingresses: ['metadata.namespace', 'metadata.name'] },
    { ingresses: objects },
  );
  return render(compiled.value, snap);
}

function cfg(
  template: string,
  objects: object[] = [],
  extra: Record<string, unknown> = {},
): string {
  const r = run({ haproxy: template, extra }, objects);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.outputs.haproxyConfig;
}

function problem(template: string, objects: object[] = [], extra: Record<string, unknown> = {}) {
  const r = run({ haproxy: template, extra }, objects);
  if (r.ok) throw new Error(`expected a failure, got ${r.outputs.haproxyConfig}`);
  return r.problems[0]!;
}

describe('output escaper', () => {
  it.each([
    ['\n', 'a newline'],
    ['\r', 'a carriage return'],
    ['\u0000', 'a NUL byte'],
    ['\t', 'a tab'],
    ['\u001b', 'U+001b'],
    ['\u007f', 'U+007f'],
  ])('refuses %j in haproxy.cfg', (c, name) => {
    const p = problem('x {{ extra.v }}', [], { v: `a${c}b` });
    expect(p.code).toBe('unsafe-output');
    expect(p.message).toContain(name);
    expect([p.line, p.column]).toEqual([1, 3]);
  });

  it('refuses in map files too, but not in general files or certificates', () => {
    const extra = { v: 'a\nb' };
    const inMap = run({ maps: { 'm.map': '{{ extra.v }}' }, extra });
    expect(inMap.ok).toBe(false);
    const elsewhere = run({
      files: { f: '{{ extra.v }}' },
      certs: { 'c.pem': '{{ extra.v }}' },
      extra,
    });
    expect(elsewhere.ok && elsewhere.outputs.files['f']).toBe('a\nb');
    expect(elsewhere.ok && elsewhere.outputs.sslCertificates['c.pem']).toBe('a\nb');
  });

  it('lets a visible raw opt-out through', () => {
    expect(cfg('{{ extra.v | raw }}', [], { v: 'a\nb' })).toBe('a\nb');
  });

  it('checks echo, liquid and cycle tags too', () => {
    for (const t of [
      '{% echo extra.v %}',
      '{% liquid echo extra.v %}',
      '{% cycle extra.v, "x" %}',
    ]) {
      expect(problem(t, [], { v: 'a\nb' }).code).toBe('unsafe-output');
    }
  });

  it('names the object the value came from even when a filter changed it', () => {
    const objects = [ingress('a', 'ok', { x: 'fine' }), ingress('b', 'bad', { x: 'EVIL\nline' })];
    const r = run(
      {
        haproxy:
          '{% for i in resources.ingresses %}{{ i.metadata.annotations.x | downcase }}{% endfor %}',
      },
      objects,
    );
    expect(r.ok).toBe(true);
    expect(r.quarantined.map((q) => q.object.name)).toEqual(['bad']);
  });
});

describe('HAProxy filters', () => {
  it('quotes strings for HAProxy', () => {
    expect(cfg('{{ extra.v | haproxy_quote }}', [], { v: 'a "b" $HOME \\' })).toBe(
      '"a \\"b\\" \\$HOME \\\\"',
    );
  });

  it('doubles % in header values so they are not log-format expressions', () => {
    expect(cfg('{{ extra.v | header_value }}', [], { v: '100% %[env(X)]' })).toBe(
      '"100%% %%[env(X)]"',
    );
  });

  it('escapes regexes for PCRE and for an unquoted HAProxy word', () => {
    expect(cfg('{{ extra.v | regex_escape }}', [], { v: 'a.b*c' })).toBe('a\\.b\\*c');
    expect(cfg('{{ extra.v | haproxy_regex }}', [], { v: 'a.b c#' })).toBe('a\\\\.b\\ c\\#');
  });

  it.each([
    ['valid_hostname', 'Example.COM', 'example.com'],
    ['valid_hostname', '*.example.com', '*.example.com'],
    ['valid_path', '/a/b-c_d~e%20', '/a/b-c_d~e%20'],
    ['valid_duration', '250ms', '250ms'],
    ['valid_cidr', '10.0.0.0/8', '10.0.0.0/8'],
    ['valid_cidr', ' 192.0.2.7 ', '192.0.2.7'],
    ['valid_cidr', 'fd00::/8', 'fd00::/8'],
  ])('%s accepts %j', (filter, input, output) => {
    expect(cfg(`{{ extra.v | ${filter} }}`, [], { v: input })).toBe(output);
  });

  it.each([
    ['valid_hostname', 'bad host'],
    ['valid_hostname', '-x.example.com'],
    // Look-alikes: String#toLowerCase would turn the Kelvin sign into an ASCII k.
    ['valid_hostname', '\u212aelvin.example.com'],
    ['valid_hostname', 'b\u0430d.example.com'],
    ['base64_decode', 'not base64!'],
    ['valid_path', 'relative'],
    ['valid_path', "/it's"],
    ['valid_path', '/a b'],
    ['valid_duration', '10 s'],
    ['valid_duration', '5x'],
    ['valid_cidr', '10.0.0.0/33'],
    ['valid_cidr', '10.0.0.0/8 if TRUE'],
    ['valid_cidr', '300.0.0.1'],
    ['valid_cidr', '10.0.0.0/8/8'],
    ['valid_cidr', 'fd00::/129'],
  ])('%s refuses %j', (filter, input) => {
    const p = problem(`{{ extra.v | ${filter} }}`, [], { v: input });
    expect(p.code).toBe('invalid-value');
    expect(p.message).toContain(filter);
  });

  it('checks integer ranges', () => {
    expect(cfg('{{ extra.v | int_range: 1, 10 }}', [], { v: '7' })).toBe('7');
    expect(problem('{{ extra.v | int_range: 1, 10 }}', [], { v: '11' }).code).toBe('invalid-value');
    expect(problem('{{ extra.v | int_range: 1, 10 }}', [], { v: '1.5' }).code).toBe(
      'invalid-value',
    );
  });

  it('builds paths from the dataplane directories and refuses path tricks', () => {
    expect(
      cfg(
        '{{ "a.map" | map_path }} {{ "e.http" | file_path }} {{ "c.pem" | cert_path }} {{ "l.txt" | crt_list_path }}',
      ),
    ).toBe(
      '/etc/haproxy/maps/a.map /etc/haproxy/general/e.http /etc/haproxy/ssl/c.pem /etc/haproxy/general/l.txt',
    );
    expect(problem('{{ "../x" | map_path }}').code).toBe('invalid-value');
  });
});

describe('registration', () => {
  it('accepts the same content twice and refuses a crt-list named like a general file', () => {
    const t =
      '{% register_crt_list name: "x.list", content: "a" %}{% register_crt_list name: "x.list", content: "a" %}';
    const same = run({ haproxy: t });
    expect(same.ok && same.outputs.crtLists).toEqual({ 'x.list': 'a' });
    const clash = run({ haproxy: t, files: { 'x.list': 'f' } });
    expect(!clash.ok && clash.problems[0]!.code).toBe('registration-conflict');
  });

  it('adds a registered general file beside the files templates, refusing other content under their name', () => {
    const t = '{% register_file name: "ca.crl", content: "-----BEGIN X509 CRL-----" %}';
    const ok = run({ haproxy: t, files: { 'page.http': 'p' } });
    expect(ok.ok && ok.outputs.files).toEqual({
      'ca.crl': '-----BEGIN X509 CRL-----',
      'page.http': 'p',
    });
    expect(ok.ok && ok.outputs.sslCertificates).toEqual({});
    const clash = run({ haproxy: t, files: { 'ca.crl': 'other' } });
    expect(!clash.ok && clash.problems[0]!.code).toBe('registration-conflict');
    const bad = run({ haproxy: '{% register_file name: "../x", content: "a" %}' });
    expect(bad.ok).toBe(false);
  });
});

describe('determinism guards', () => {
  it('refuses "now" in date filters but formats dates from objects in UTC', () => {
    expect(problem('{{ "now" | date: "%Y" }}').message).toContain('deterministic');
    expect(cfg('{{ extra.t | date: "%Y-%m-%d %H:%M" }}', [], { t: '2026-01-02T03:04:05Z' })).toBe(
      '2026-01-02 03:04',
    );
  });

  it('has no random filter', () => {
    expect(compileTemplates(specOf({ haproxy: '{{ extra.v | sample }}' })).ok).toBe(false);
  });
});

describe('look-ups and context', () => {
  const objects = [ingress('a', 'one'), ingress('a', 'two'), ingress('b', 'one')];

  it('gets one object by all keys and fetches by prefix', () => {
    const t =
      '{% assign x = resources.ingresses | get: "a", "two" %}{{ x.metadata.name }}|' +
      '{% assign none = resources.ingresses | get: "z", "z" %}{{ none == nil }}|' +
      '{{ resources.ingresses | fetch: "a" | map: "metadata.name" | join: "," }}|{{ resources.ingresses.size }}';
    expect(cfg(t, objects)).toBe('two|true|one,two|3');
  });

  it('refuses get on something that is not a resource list', () => {
    expect(problem('{{ extra | get: "a" }}').message).toBe(
      'get: the input must be resources.<name>',
    );
  });

  it('names the object being rendered when no object explains a failure', () => {
    const t = '{% for i in resources.ingresses %}{{ extra.v }}{{ i | get: "x" }}{% endfor %}';
    const unsafe = problem(t, [ingress('a', 'one')], { v: 'a\nb' });
    expect(unsafe.object).toBeUndefined();
    expect(unsafe.rendering).toMatchObject({ namespace: 'a', name: 'one' });
    const failed = problem(t, [ingress('a', 'one')], { v: 'ok' });
    expect(failed).toMatchObject({ code: 'render', rendering: { name: 'one' } });
    expect(failed.message).toBe('get: the input must be resources.<name>');
  });

  it('fails with the message of the fail tag', () => {
    const p = problem('line\n  {% fail "need " | append: "more" %}');
    expect(p).toMatchObject({ code: 'fail', message: 'need more', line: 2, column: 3 });
  });

  it('stops a render that runs past its time limit', () => {
    const compiled = compileTemplates(
      specOf({
        haproxy: '{% for i in (1..100000) %}{% for j in (1..100) %}{{ j }}{% endfor %}{% endfor %}',
      }),
    );
    if (!compiled.ok) throw new Error('compile');
    const r = render(compiled.value, snapshotOf({}, {}), { timeLimitMs: 20 });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems[0]!.message).toMatch(/render limit exceeded/);
  });

  it('renders the same bytes and hash twice, and another hash for another snapshot', () => {
    const t = '{% for i in resources.ingresses %}{{ i.metadata.name }}\n{% endfor %}';
    const a = run({ haproxy: t }, objects);
    const b = run({ haproxy: t }, [...objects].reverse());
    const c = run({ haproxy: t }, objects.slice(1));
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (a.ok && b.ok && c.ok) {
      expect(b.outputs).toEqual(a.outputs);
      expect(b.hash).toBe(a.hash);
      expect(c.hash).not.toBe(a.hash);
    }
  });
});
