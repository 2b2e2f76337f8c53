import { describe, expect, it } from 'vitest';
import { defaultBackendSpec, defaultBackendsOf } from './default-backend.js';
import { NginxRefusal } from './reader.js';
import type { IngressBackend } from '../ingress/model.js';

function ingress(name: string, value?: string): object {
  const annotations =
    value === undefined ? {} : { 'nginx.ingress.kubernetes.io/default-backend': value };
  return { metadata: { name, namespace: 'apps', annotations } };
}

function backend(name: string, ing: object): IngressBackend {
  return { name, namespace: 'apps', service: 'web', port: '80', ingress: ing };
}

const fallbackSvc = {
  metadata: { name: 'fallback', namespace: 'apps' },
  spec: {
    ports: [
      { name: 'http', port: 8081 },
      { name: 'b', port: 9000 },
    ],
  },
};

describe('default-backend', () => {
  it('reads a Service name and refuses anything else, naming the annotation', () => {
    expect(defaultBackendSpec(ingress('a', ' fallback '))).toBe('fallback');
    expect(defaultBackendSpec(ingress('a'))).toBeUndefined();
    expect(() => defaultBackendSpec(ingress('a', 'x } { y'))).toThrow(NginxRefusal);
    expect(() => defaultBackendSpec(ingress('a', 'Upper'))).toThrow(
      /Ingress apps\/a: annotation nginx\.ingress\.kubernetes\.io\/default-backend: "Upper" is not a Service name/,
    );
  });

  it("adds the Service's backend at its first port once, for each Ingress backend naming it", () => {
    const ing = ingress('a', 'fallback');
    const lookups: string[][] = [];
    const services = (keys: readonly string[]) => {
      lookups.push([...keys]);
      return keys[1] === 'fallback' ? [fallbackSvc] : [];
    };
    const plain = backend('svc_apps_web_80', ingress('b'));
    const r = defaultBackendsOf(
      [backend('ing_apps_a_web_80', ing), backend('ing_apps_a_api_80', ing), plain],
      services,
    );
    expect(r.backends).toEqual([
      {
        name: 'svc_apps_fallback_8081',
        namespace: 'apps',
        service: 'fallback',
        port: '8081',
        ingress: ing,
      },
    ]);
    expect(r.fallbacks).toEqual([
      { backend: 'ing_apps_a_web_80', fallback: 'svc_apps_fallback_8081' },
      { backend: 'ing_apps_a_api_80', fallback: 'svc_apps_fallback_8081' },
    ]);
    expect(r.notices).toEqual([]);
    expect(lookups[0]).toEqual(['apps', 'fallback']);
  });

  it('reuses a backend the model has already and notices a missing Service once', () => {
    const ing = ingress('a', 'fallback');
    const shared = backend('svc_apps_fallback_8081', ingress('c'));
    const r = defaultBackendsOf([backend('ing_apps_a_web_80', ing), shared], () => [fallbackSvc]);
    expect(r.backends).toEqual([]);
    expect(r.fallbacks).toHaveLength(1);
    const gone = defaultBackendsOf(
      [backend('ing_apps_a_web_80', ing), backend('ing_apps_a_api_80', ing)],
      () => [],
    );
    expect(gone.fallbacks).toEqual([]);
    expect(gone.notices).toHaveLength(1);
    expect(gone.notices[0]?.message).toMatch(/Service apps\/fallback not found/);
  });
});
