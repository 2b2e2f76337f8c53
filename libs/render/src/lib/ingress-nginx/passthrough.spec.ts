import { describe, expect, it } from 'vitest';
import { NginxRefusal } from './reader.js';
import { passthroughOf, wantsPassthrough } from './passthrough.js';

const P = 'nginx.ingress.kubernetes.io/';

type Path = readonly [path: string, service: string, port: number | string];

/** An Ingress (oldest first by `age`) with rules host → paths, and optional extras. */
const ing = (
  name: string,
  rules: Record<string, readonly Path[]>,
  annotations: Record<string, string> = {},
  spec: object = {},
) => ({
  metadata: {
    namespace: 'apps',
    name,
    annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
  },
  spec: {
    ...spec,
    rules: Object.entries(rules).map(([host, paths]) => ({
      ...(host === '' ? {} : { host }),
      http: {
        paths: paths.map(([path, name, port]) => ({
          path,
          pathType: 'Prefix',
          backend: {
            service: { name, port: typeof port === 'number' ? { number: port } : { name: port } },
          },
        })),
      },
    })),
  },
});

const on = { 'ssl-passthrough': 'true' };
const lines = (r: ReturnType<typeof passthroughOf>) =>
  r.passthrough.routes.map((x) => `${x.host} ${x.backend}`);

describe('ssl-passthrough', () => {
  it('passes a host through to the Service of its root location, one TCP backend per Service port', () => {
    const r = passthroughOf(
      [
        ing(
          'a',
          { 'b.example.com': [['/', 'tls', 8443]], 'a.example.com': [['/', 'tls', 8443]] },
          on,
        ),
        ing('named', { 'n.example.com': [['/', 'tls', 'https']] }, on),
      ],
      true,
    );
    expect(lines(r)).toEqual([
      'a.example.com pt_apps_tls_8443',
      'b.example.com pt_apps_tls_8443',
      'n.example.com pt_apps_tls_https',
    ]);
    expect(r.passthrough.backends).toEqual([
      { name: 'pt_apps_tls_8443', namespace: 'apps', service: 'tls', port: '8443' },
      { name: 'pt_apps_tls_https', namespace: 'apps', service: 'tls', port: 'https' },
    ]);
    expect(r.unread).toEqual([]);
  });

  it('takes the path / of any Ingress of the host, else the spec.defaultBackend of its oldest', () => {
    const r = passthroughOf(
      [
        ing(
          'first',
          { 'x.example.com': [['/api', 'api', 80]], 'Y.Example.com': [['/a', 'api', 80]] },
          on,
          {
            defaultBackend: { service: { name: 'dflt', port: { number: 443 } } },
          },
        ),
        ing('root', { 'x.example.com': [['/', 'tls', 8443]] }),
      ],
      true,
    );
    expect(lines(r)).toEqual(['x.example.com pt_apps_tls_8443', 'y.example.com pt_apps_dflt_443']);
  });

  it('leaves a host alone, saying why, when an older Ingress holds it, it has no root, no host or a wildcard', () => {
    const old = ing('old', { 'held.example.com': [['/', 'web', 80]] });
    const asking = ing(
      'asking',
      {
        'held.example.com': [['/x', 'tls', 8443]],
        'noroot.example.com': [['/api', 'tls', 8443]],
        '*.wild.example.com': [['/', 'tls', 8443]],
        '': [['/', 'tls', 8443]],
        'ok.example.com': [['/', 'tls', 8443]],
      },
      on,
    );
    const r = passthroughOf([old, asking], true);
    expect(lines(r)).toEqual(['ok.example.com pt_apps_tls_8443']);
    expect(r.unread.map((u) => u.detail)).toEqual([
      'host held.example.com is not passed through: its oldest Ingress, apps/old, does not ask for it (as ingress-nginx, that Ingress decides)',
      'host noroot.example.com is not passed through: no rule path / and no spec.defaultBackend gives it a Service (as ingress-nginx)',
      'host *.wild.example.com is not passed through: ingress-nginx matches the SNI exactly, so a wildcard host never is',
      'a rule without a host is never passed through (no SNI names it)',
    ]);
    expect(r.unread.every((u) => u.ing === asking)).toBe(true);
  });

  it('passes nothing through without enable_ssl_passthrough, naming each Ingress that asks', () => {
    const asking = ing('a', { 'a.example.com': [['/', 'tls', 8443]] }, on);
    const r = passthroughOf([asking, ing('b', { 'b.example.com': [['/', 'tls', 8443]] })], false);
    expect(r.passthrough).toEqual({ routes: [], backends: [] });
    expect(r.unread).toEqual([
      {
        ing: asking,
        detail:
          'the library setting enable_ssl_passthrough is false (as ingress-nginx without --enable-ssl-passthrough): its hosts are served with TLS terminated',
      },
    ]);
  });

  it("reads the annotation as ingress-nginx's boolean; another value refuses the Ingress", () => {
    const with_ = (v: string) =>
      ing('a', { 'a.example.com': [['/', 'tls', 8443]] }, { 'ssl-passthrough': v });
    expect(wantsPassthrough(with_('True'))).toBe(true);
    expect(wantsPassthrough(with_('false'))).toBe(false);
    expect(wantsPassthrough(ing('a', {}))).toBe(false);
    expect(() => wantsPassthrough(with_('yes'))).toThrow(NginxRefusal);
    expect(() => wantsPassthrough(with_('yes'))).toThrow(
      'Ingress apps/a: annotation nginx.ingress.kubernetes.io/ssl-passthrough: "yes" is not true or false',
    );
    expect(passthroughOf([with_('false')], true).passthrough.routes).toEqual([]);
  });
});
