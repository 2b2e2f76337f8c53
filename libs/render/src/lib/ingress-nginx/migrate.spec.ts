import { describe, expect, it } from 'vitest';
import { NGINX_PREFIX } from './catalogue-types.js';
import type { AnnotationVerdict, Verdict } from './catalogue.js';
import {
  MigrateExit,
  MigrateInputError,
  formatMigrationReport,
  ingressesOf,
  migrationReport,
} from './migrate.js';

const ing = (name: string, annotations: Record<string, string> = {}, ns?: string) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, ...(ns ? { namespace: ns } : {}), annotations },
  spec: { ingressClassName: 'nginx' },
});

describe('ingressesOf', () => {
  it('takes Ingresses from Lists and single documents, skipping other kinds and empty documents', () => {
    const docs = [
      { kind: 'List', items: [ing('a'), { kind: 'Service', metadata: { name: 's' } }, ing('b')] },
      null,
      ing('c'),
      { kind: 'ConfigMap', metadata: { name: 'cm' } },
    ];
    expect(ingressesOf(docs, 'dump.yaml').map((i) => i.metadata?.name)).toEqual(['a', 'b', 'c']);
  });

  it('names the document and the field of bad input', () => {
    expect(() => ingressesOf([{ kind: 'List' }], 'f.yaml')).toThrow(
      new MigrateInputError('f.yaml document 1: List has no items'),
    );
    expect(() =>
      ingressesOf([ing('ok'), { kind: 'List', items: [{ kind: 'Ingress', metadata: {} }] }], 'f'),
    ).toThrow('f document 2 items[0]: Ingress has no metadata.name');
    expect(() => ingressesOf(['text'], 'f')).toThrow('f document 1: not a Kubernetes object');
  });
});

describe('migrationReport', () => {
  const mixed = [
    ing(
      'web',
      {
        [`${NGINX_PREFIX}auth-tls-verify-depth`]: '2',
        [`${NGINX_PREFIX}configuration-snippet`]: 'more_set_headers "X: y";',
        [`${NGINX_PREFIX}backend-protocol`]: 'FCGI',
        [`${NGINX_PREFIX}made-up`]: 'true',
        'example.com/other': 'ignored',
      },
      'shop',
    ),
    ing('plain', {}, 'a'),
  ];

  it('judges only ingress-nginx annotations, per Ingress in order, with totals and exit 4', () => {
    const r = migrationReport(mixed);
    expect(r.ingresses.map((i) => `${i.namespace}/${i.name}`)).toEqual(['a/plain', 'shop/web']);
    expect(r.ingresses[1]?.annotations.map((a) => [a.annotation, a.verdict])).toEqual([
      [`${NGINX_PREFIX}auth-tls-verify-depth`, 'not-yet-honoured'],
      [`${NGINX_PREFIX}backend-protocol`, 'refused'],
      [`${NGINX_PREFIX}configuration-snippet`, 'refused'],
      [`${NGINX_PREFIX}made-up`, 'unknown'],
    ]);
    expect(r.totals).toEqual({
      honoured: 0,
      deviation: 0,
      refused: 2,
      'not-yet-honoured': 1,
      unknown: 1,
    });
    expect(r.exitCode).toBe(MigrateExit.notHonoured);
  });

  it('judges the canary annotations, naming canary rules without effect on a mainline', () => {
    const c = (a: Record<string, string>) =>
      Object.fromEntries(Object.entries(a).map(([k, v]) => [NGINX_PREFIX + k, v]));
    const r = migrationReport([
      ing('beta', c({ canary: 'true', 'canary-by-header': 'X-C', 'canary-weight': '20' })),
      ing('main', c({ 'canary-weight': '20' })),
    ]);
    expect(
      r.ingresses.flatMap((i) => i.annotations.map((a) => `${i.name} ${a.verdict} ${a.detail}`)),
    ).toEqual([
      `beta deviation ${String(r.ingresses[0]?.annotations[0]?.detail)}`,
      'beta honoured ',
      'beta honoured ',
      'main honoured without effect: the Ingress is not a canary (canary: "true"), as in ingress-nginx',
    ]);
    expect(r.ingresses[0]?.annotations[0]?.detail).toMatch(/mainline Ingress's annotations/);
    expect(r.exitCode).toBe(MigrateExit.deviations);
  });

  it('exits 0 when all is honoured, 3 with deviations only, 4 with anything else', () => {
    const by =
      (verdict: Verdict) =>
      (annotation: string): AnnotationVerdict => ({ annotation, verdict, detail: '' });
    const one = [ing('x', { [`${NGINX_PREFIX}a`]: '1' })];
    expect(migrationReport([ing('none')]).exitCode).toBe(0);
    expect(migrationReport(one, by('honoured')).exitCode).toBe(0);
    expect(migrationReport(one, by('deviation')).exitCode).toBe(3);
    expect(migrationReport(one, by('unknown')).exitCode).toBe(4);
    expect(MigrateExit).toEqual({ ok: 0, deviations: 3, notHonoured: 4 });
  });

  it('formats text per Ingress and annotation, then the totals', () => {
    expect(formatMigrationReport(migrationReport(mixed)).split('\n')).toEqual([
      'a/plain (class nginx): no ingress-nginx annotations',
      'shop/web (class nginx)',
      '  not-yet-honoured  nginx.ingress.kubernetes.io/auth-tls-verify-depth: planned: issue 35, not refused',
      expect.stringMatching(
        /^ {2}refused {11}nginx\.ingress\.kubernetes\.io\/backend-protocol: value "FCGI": /,
      ) as unknown,
      expect.stringMatching(
        /^ {2}refused {11}\S+configuration-snippet: snippets are never/,
      ) as unknown,
      expect.stringMatching(/^ {2}unknown {11}\S+made-up: not an annotation/) as unknown,
      'Totals: 2 Ingresses, 4 annotations: 0 honoured, 0 deviation, 2 refused, 1 not-yet-honoured, 1 unknown',
    ]);
  });
});
