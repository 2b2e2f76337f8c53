import { describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { RejectedObjectsError } from '../provenance.js';
import type { RenderNotice, RenderSnapshot } from '../types.js';
import { ingressNginxProvider, type NginxModel } from './provider.js';

const P = 'nginx.ingress.kubernetes.io/';

const ing = (
  name: string,
  host: string,
  paths: readonly [string, string][],
  annotations: Record<string, string> = {},
  tls = false,
) => ({
  metadata: {
    namespace: 'apps',
    name,
    creationTimestamp: `2024-01-01T00:00:0${name.length % 10}Z`,
    annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
  },
  spec: {
    ingressClassName: 'nginx',
    ...(tls ? { tls: [{ hosts: [host], secretName: 'tls' }] } : {}),
    rules: [
      {
        host,
        http: {
          paths: paths.map(([path, pathType]) => ({
            path,
            pathType,
            backend: { service: { name: 'web', port: { number: 80 } } },
          })),
        },
      },
    ],
  },
});

function snapshot(ingresses: object[]): RenderSnapshot {
  return snapshotOf(
    { ingresses: ['metadata.namespace', 'metadata.name'], ingressclasses: ['metadata.name'] },
    {
      ingresses,
      ingressclasses: [
        { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
      ],
    },
  );
}

function provide(ingresses: object[], extra: Record<string, unknown> = {}): NginxModel {
  return ingressNginxProvider.provide(snapshot(ingresses), {
    extra: { controller_name: 'k8s.io/ingress-nginx', ...extra },
    watched: ['ingresses', 'ingressclasses'],
    incremental: false,
  }) as NginxModel;
}

function refusals(ingresses: object[], extra: Record<string, unknown> = {}): string[] {
  try {
    provide(ingresses, extra);
  } catch (err) {
    if (err instanceof RejectedObjectsError) return err.problems.map((p) => p.message);
    throw err;
  }
  return [];
}

describe('the nginx context provider', () => {
  it('makes every path of a host regex when one Ingress uses regex, in nginx location order', () => {
    const m = provide([
      ing('a', 'r.example.com', [['/static', 'Prefix']]),
      ing(
        'bb',
        'r.example.com',
        [
          ['/api/(v[0-9]+)', 'ImplementationSpecific'],
          ['/b', 'Exact'],
        ],
        {
          'use-regex': 'true',
        },
      ),
      ing('ccc', 'p.example.com', [
        ['/x', 'Prefix'],
        ['/x', 'Exact'],
      ]),
    ]);
    expect(m.regex_routes.map((r) => r.key)).toEqual([
      '^r\\.example\\.com(?i:/api/(v[0-9]+))',
      '^r\\.example\\.com(?i:/static)',
      '^r\\.example\\.com(?i:/b)',
    ]);
    expect(m.prefix_routes.map((r) => r.key)).toEqual(['p.example.com/x/']);
    expect(m.exact_routes.map((r) => r.key)).toEqual(['p.example.com/x']);
  });

  it('gives an Ingress with ingress-nginx annotations or TLS its own backend, others the shared one', () => {
    const m = provide([
      ing('plain', 'a.example.com', [['/', 'Prefix']]),
      ing('tls', 'b.example.com', [['/', 'Prefix']], {}, true),
      ing('ann', 'c.example.com', [['/', 'Prefix']], { 'enable-cors': 'true' }),
    ]);
    expect(m.backends.map((b) => b.name)).toEqual([
      'ing_apps_ann_web_80',
      'ing_apps_tls_web_80',
      'svc_apps_web_80',
    ]);
  });

  it('serves server-alias hosts no rule names', () => {
    const m = provide([
      ing('a', 'main.example.com', [['/', 'Prefix']], {
        'server-alias': 'alt.example.com, other.example.com',
      }),
      ing('bb', 'other.example.com', [['/', 'Prefix']]),
    ]);
    expect(m.prefix_routes.map((r) => `${r.key} ${r.backend}`)).toEqual([
      // longest key first (map_beg takes the first match)
      'other.example.com/ svc_apps_web_80',
      'main.example.com/ ing_apps_a_web_80',
      'alt.example.com/ ing_apps_a_web_80',
    ]);
  });

  it('lists the annotations it does not honour, naming Ingress and annotation, and still serves', () => {
    const m = provide([
      ing('later', 'l.example.com', [['/', 'Prefix']], {
        'auth-tls-verify-depth': '2',
        'canary-weight': '10',
        'use-regexx': 'true',
        'enable-cors': 'true',
      }),
    ]);
    expect(m.unhonoured.map((u) => `${u.ingress} ${u.annotation} ${u.verdict}`)).toEqual([
      `apps/later ${P}auth-tls-verify-depth not-yet-honoured`,
      `apps/later ${P}use-regexx unknown`,
      // ingress-nginx reads canary rules only on a canary Ingress
      `apps/later ${P}canary-weight no-effect`,
    ]);
    expect(m.served).toHaveLength(1);
  });

  it('gives the render a notice per annotation served without effect, naming the Ingress', () => {
    const got: RenderNotice[] = [];
    ingressNginxProvider.provide(
      snapshot([
        ing('later', 'l.example.com', [['/', 'Prefix']], { 'auth-tls-verify-depth': '2' }),
      ]),
      {
        extra: { controller_name: 'k8s.io/ingress-nginx' },
        watched: ['ingresses', 'ingressclasses'],
        incremental: false,
        notice: (n) => got.push(n),
      },
    );
    expect(got).toEqual([
      {
        reason: 'AnnotationNotHonoured',
        message: `Ingress apps/later: annotation ${P}auth-tls-verify-depth is not honoured, served without it (planned: issue 35, not refused)`,
        object: { watched: 'ingresses', kind: 'ingresses', namespace: 'apps', name: 'later' },
      },
    ]);
  });

  it('gives a notice for a custom-headers ConfigMap that is missing (its locations answer 503)', () => {
    const got: RenderNotice[] = [];
    const web = ing('web', 'w.example.com', [['/', 'Prefix']], { 'custom-headers': 'apps/hdrs' });
    ingressNginxProvider.provide(snapshot([web]), {
      extra: { controller_name: 'k8s.io/ingress-nginx' },
      watched: ['ingresses', 'ingressclasses'],
      incremental: false,
      notice: (n) => got.push(n),
    });
    expect(got.map((n) => n.message)).toEqual([
      'Ingress apps/web: custom-headers: ConfigMap apps/hdrs not found; its locations answer 503',
    ]);
  });

  it('refuses snippets, refused values and bad values all at once, naming each annotation', () => {
    expect(
      refusals([
        ing('s', 's.example.com', [['/', 'Prefix']], { 'server-snippet': 'return 200;' }),
        ing('ff', 'f.example.com', [['/', 'Prefix']], { 'backend-protocol': 'FCGI' }),
        ing('rrr', 'r.example.com', [['/', 'Prefix']], { 'limit-rps': 'lots' }),
        ing('hh', 'h.example.com', [['/', 'Prefix']], { 'custom-headers': 'other/hdrs' }),
        ing('ok', 'o.example.com', [['/', 'Prefix']]),
      ]),
    ).toEqual([
      expect.stringMatching(
        /^Ingress apps\/s: annotation nginx.ingress.kubernetes.io\/server-snippet: snippets are never pasted/,
      ),
      expect.stringMatching(
        /^Ingress apps\/ff: annotation nginx.ingress.kubernetes.io\/backend-protocol: value "FCGI"/,
      ),
      'Ingress apps/hh: annotation nginx.ingress.kubernetes.io/custom-headers: ConfigMap other/hdrs is in another namespace than the Ingress',
      'Ingress apps/rrr: annotation nginx.ingress.kubernetes.io/limit-rps: "lots" is not a whole number from 1 to 1000000',
    ]);
  });

  it('refuses a regex path that is not a regular expression, and allow_snippet_annotations: true', () => {
    expect(
      refusals([ing('re', 'x.example.com', [['/a(b', 'Prefix']], { 'use-regex': 'true' })]),
    ).toEqual([
      'Ingress apps/re: path /a(b of host x.example.com (use-regex) is not a valid regular expression',
    ]);
    expect(() => provide([], { allow_snippet_annotations: true })).toThrow(/never pasted/);
    expect(() => provide([], { proxy_body_size: '1 GB' })).toThrow(
      /extraContext.proxy_body_size: "1 GB" is not an nginx size/,
    );
  });

  it('passes ssl-passthrough hosts through only with enable_ssl_passthrough, else says it is without effect', () => {
    const pt = ing('pt', 'pt.example.com', [['/', 'Prefix']], { 'ssl-passthrough': 'true' });
    const got: RenderNotice[] = [];
    const run = (extra: Record<string, unknown>) =>
      ingressNginxProvider.provide(snapshot([pt]), {
        extra: { controller_name: 'k8s.io/ingress-nginx', ...extra },
        watched: ['ingresses', 'ingressclasses'],
        incremental: false,
        notice: (n) => got.push(n),
      }) as NginxModel;
    const off = run({});
    expect(off.passthrough).toEqual({ routes: [], backends: [] });
    expect(off.unhonoured.map((u) => `${u.ingress} ${u.annotation} ${u.verdict}`)).toEqual([
      `apps/pt ${P}ssl-passthrough no-effect`,
    ]);
    expect(got).toEqual([
      {
        reason: 'AnnotationNotHonoured',
        message: `Ingress apps/pt: annotation ${P}ssl-passthrough is without effect, served without it (the library setting enable_ssl_passthrough is false (as ingress-nginx without --enable-ssl-passthrough): its hosts are served with TLS terminated)`,
        object: { watched: 'ingresses', kind: 'ingresses', namespace: 'apps', name: 'pt' },
      },
    ]);
    got.length = 0;
    const on = run({ enable_ssl_passthrough: true });
    expect(on.passthrough.routes).toEqual([{ host: 'pt.example.com', backend: 'pt_apps_web_80' }]);
    expect(on.unhonoured).toEqual([]);
    expect(got).toEqual([]);
    // plain HTTP to the host keeps its HTTP route
    expect(on.prefix_routes.map((r) => `${r.key} ${r.backend}`)).toEqual([
      'pt.example.com/ ing_apps_pt_web_80',
    ]);
    // a value that is not a boolean fails the render, naming the setting
    expect(() => run({ enable_ssl_passthrough: 'yes' })).toThrow(
      'templatingSettings.extraContext.enable_ssl_passthrough: "yes" is not true or false',
    );
  });

  it('refuses an ssl-passthrough value that is not true or false', () => {
    expect(
      refusals([ing('pt', 'pt.example.com', [['/', 'Prefix']], { 'ssl-passthrough': 'on' })]),
    ).toEqual([
      'Ingress apps/pt: annotation nginx.ingress.kubernetes.io/ssl-passthrough: "on" is not true or false',
    ]);
  });

  it("adds the library's default_backend_service as the catch-all backend, or says its Service is missing", () => {
    const web = ing('web', 'web.example.com', [['/', 'Prefix']]);
    const services = [
      { metadata: { namespace: 'shared', name: 'errors' }, spec: { ports: [{ port: 8082 }] } },
    ];
    const snap = snapshotOf(
      {
        ingresses: ['metadata.namespace', 'metadata.name'],
        ingressclasses: ['metadata.name'],
        services: ['metadata.namespace', 'metadata.name'],
      },
      {
        ingresses: [web],
        ingressclasses: [
          { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
        ],
        services,
      },
    );
    const got: RenderNotice[] = [];
    const run = (service: string) =>
      ingressNginxProvider.provide(snap, {
        extra: {
          controller_name: 'k8s.io/ingress-nginx',
          default_backend_service: service,
          custom_http_errors: '503',
        },
        watched: ['ingresses', 'ingressclasses', 'services'],
        incremental: false,
        notice: (n) => got.push(n),
      }) as NginxModel;
    const on = run('shared/errors');
    expect(on.global_default_backend).toBe('svc_shared_errors_8082');
    expect(on.backends.map((b) => b.name)).toContain('svc_shared_errors_8082');
    expect(on.custom_errors).toBe(true);
    expect(got).toEqual([]);
    const gone = run('shared/gone');
    expect(gone.global_default_backend).toBe('');
    expect(got.map((n) => n.message)).toEqual([
      "templatingSettings.extraContext.default_backend_service: Service shared/gone not found or without a port; requests no Ingress matches get the library's 404",
    ]);
    expect(() => run('gone')).toThrow(/default_backend_service: "gone" is not namespace\/name/);
  });
});
