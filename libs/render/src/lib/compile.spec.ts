import { describe, expect, it } from 'vitest';
import { compileTemplates } from './compile.js';
import { render } from './render.js';
import { snapshotOf } from '#index';
import { specOf } from './spec-fixture.test.js';

describe('compileTemplates', () => {
  it('reports every problem of a config at once, located', () => {
    const r = compileTemplates(
      specOf({
        haproxy: '{{ x | nope }}',
        maps: { 'a.map': '{% if %}' },
        files: { f: '{{ resourcez.ingresses }}' },
        snippets: { s: '{% unknown_tag %}' },
      }),
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.map((p) => [p.code, p.template])).toEqual([
        ['unknown-name', 'file:f'],
        ['unknown-filter', 'haproxy.cfg'],
        ['syntax', 'map:a.map'],
        ['unknown-tag', 's'],
      ]);
      expect(r.error.every((p) => p.line !== undefined && p.column !== undefined)).toBe(true);
    }
  });

  it('accepts names added by context providers, and renders them', () => {
    const spec = specOf({ haproxy: '{{ tenants.count }}' });
    expect(compileTemplates(spec).ok).toBe(false);
    const compiled = compileTemplates(spec, { providerNames: ['tenants'] });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    const snap = snapshotOf(
      { ingresses: ['metadata.namespace'] },
      { ingresses: [{ metadata: { namespace: 'a', name: 'x' } }] },
    );
    const r = render(compiled.value, snap, {
      providers: [{ name: 'tenants', provide: (s) => ({ count: s.list('ingresses').length }) }],
    });
    expect(r.ok && r.outputs.haproxyConfig).toBe('1');
    const failing = render(compiled.value, snap, {
      providers: [
        {
          name: 'tenants',
          provide: () => {
            throw new Error('boom');
          },
        },
      ],
    });
    expect(!failing.ok && failing.problems[0]).toMatchObject({
      template: 'context-provider',
      message: 'context provider tenants failed: boom',
    });
  });

  it('keeps loop variables, assigned names and render parameters out of the unknown names', () => {
    const r = compileTemplates(
      specOf({
        haproxy:
          '{% assign a = 1 %}{% capture b %}x{% endcapture %}{% for i in resources.ingresses %}' +
          '{{ i.metadata.name }}{{ forloop.index }}{% endfor %}{{ a }}{{ b }}{% render "s", p: a %}' +
          '{% render_glob "g-*", q: b %}',
        snippets: { s: '{{ p }}{{ extra.x }}', 'g-1': '{{ q }}{{ a }}' },
      }),
    );
    expect(r.ok ? [] : r.error).toEqual([]);
  });

  it('merges per-render extra values over extraContext', () => {
    const compiled = compileTemplates(
      specOf({ haproxy: '{{ extra.a }}{{ extra.b }}', extra: { a: 1, b: 2 } }),
    );
    if (!compiled.ok) throw new Error('compile');
    const snap = snapshotOf({}, {});
    const r = render(compiled.value, snap, { extra: { b: 3 } });
    expect(r.ok && r.outputs.haproxyConfig).toBe('13');
  });

  it('parses each template once per config version', () => {
    const compiled = compileTemplates(specOf({ haproxy: 'x', snippets: { s: 'y' } }));
    if (!compiled.ok) throw new Error('compile');
    const snap = snapshotOf({ ingresses: ['metadata.name'] }, {});
    const first = compiled.value.templates[0]!.parsed;
    render(compiled.value, snap);
    expect(compiled.value.templates[0]!.parsed).toBe(first);
  });
});
