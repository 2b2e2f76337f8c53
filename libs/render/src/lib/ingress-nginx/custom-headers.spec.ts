import { describe, expect, it } from 'vitest';
import {
  allowedHeaders,
  customHeadersNotices,
  customHeadersOf,
  customHeadersSpec,
} from './custom-headers.js';

const P = 'nginx.ingress.kubernetes.io/';
const ing = (annotations: Record<string, string>) => ({
  metadata: {
    namespace: 'apps',
    name: 'web',
    annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
  },
});
const configMap = (name: string, data: Record<string, string>, ns = 'apps') => ({
  kind: 'ConfigMap',
  metadata: { namespace: ns, name },
  data,
});
const lookupIn =
  (...maps: object[]) =>
  ([ns, name]: readonly string[]) =>
    maps.filter((s) => {
      const m = (s as { metadata: { namespace: string; name: string } }).metadata;
      return m.namespace === ns && m.name === name;
    });
const spec = { namespace: 'apps', name: 'hdrs' };
const web = ing({ 'custom-headers': 'apps/hdrs' });

describe('customHeadersSpec', () => {
  it('is nothing without the annotation or with an empty one', () => {
    expect(customHeadersSpec(ing({}))).toBeUndefined();
    expect(customHeadersSpec(ing({ 'custom-headers': ' ' }))).toBeUndefined();
  });

  it('reads namespace/name', () => {
    expect(customHeadersSpec(web)).toEqual(spec);
  });

  it.each([['hdrs'], ['apps/hdrs/x'], ['apps/Bad_Name'], ['apps/']])(
    'refuses %j, naming the Ingress and the annotation',
    (v) => {
      expect(() => customHeadersSpec(ing({ 'custom-headers': v }))).toThrow(
        `Ingress apps/web: annotation ${P}custom-headers: ${JSON.stringify(v)} is not namespace/name of a ConfigMap`,
      );
    },
  );

  it('refuses a ConfigMap of another namespace', () => {
    expect(() => customHeadersSpec(ing({ 'custom-headers': 'other/hdrs' }))).toThrow(
      'ConfigMap other/hdrs is in another namespace than the Ingress',
    );
  });
});

describe('allowedHeaders', () => {
  it('takes a list or a comma-separated text, case-insensitively', () => {
    expect([...allowedHeaders({ global_allowed_response_headers: ['X-A', ' x-b '] })]).toEqual([
      'x-a',
      'x-b',
    ]);
    expect([...allowedHeaders({ global_allowed_response_headers: 'X-A, X-B,' })]).toEqual([
      'x-a',
      'x-b',
    ]);
    expect(allowedHeaders({}).size).toBe(0);
  });
});

describe('customHeadersOf', () => {
  const allowed = new Set(['my-custom-header', 'my-dollar']);

  it('gives the allowed entries in key order, values as they are', () => {
    const cm = configMap('hdrs', {
      'My-Dollar': '$remote_addr %[src] "q"',
      'My-Custom-Header': '42',
    });
    expect(customHeadersOf(web, spec, lookupIn(cm), allowed)).toEqual({
      headers: [
        ['My-Custom-Header', '42'],
        ['My-Dollar', '$remote_addr %[src] "q"'],
      ],
    });
  });

  it('denies (503) when the ConfigMap is missing or ConfigMaps are not watched', () => {
    const why =
      'Ingress apps/web: custom-headers: ConfigMap apps/hdrs not found; its locations answer 503';
    expect(customHeadersOf(web, spec, lookupIn(), allowed)).toEqual({ denied: why });
    expect(customHeadersOf(web, spec, undefined, allowed)).toEqual({ denied: why });
  });

  it('refuses a header not in global_allowed_response_headers, naming the key', () => {
    const cm = configMap('hdrs', { 'X-Other': '1' });
    expect(() => customHeadersOf(web, spec, lookupIn(cm), allowed)).toThrow(
      `Ingress apps/web: annotation ${P}custom-headers: ConfigMap apps/hdrs key "X-Other": header X-Other is not in the library's global_allowed_response_headers`,
    );
  });

  it.each([['Bad Name'], ['X:Y'], ['#x'], ['']])('refuses the header name %j', (key) => {
    const cm = configMap('hdrs', { [key]: '1' });
    expect(() => customHeadersOf(web, spec, lookupIn(cm), new Set([key.toLowerCase()]))).toThrow(
      `ConfigMap apps/hdrs key ${JSON.stringify(key)} is not a header name`,
    );
  });

  it.each([['a\nb'], ['a\rb'], ['a\u0000'], ['x'.repeat(4097)]])(
    'refuses a value with a control character or too long',
    (value) => {
      const cm = configMap('hdrs', { 'My-Dollar': value });
      expect(() => customHeadersOf(web, spec, lookupIn(cm), allowed)).toThrow(
        'ConfigMap apps/hdrs key "My-Dollar": the value holds a control character',
      );
    },
  );
});

describe('customHeadersNotices', () => {
  it('names each Ingress whose ConfigMap is missing, and no other', () => {
    const other = { metadata: { ...ing({}).metadata, name: 'plain' } };
    const found = configMap('hdrs', { 'My-Custom-Header': '1' });
    expect(customHeadersNotices([web, other], lookupIn(found))).toEqual([]);
    expect(customHeadersNotices([web, other], lookupIn())).toEqual([
      {
        message:
          'Ingress apps/web: custom-headers: ConfigMap apps/hdrs not found; its locations answer 503',
        object: { watched: 'ingresses', kind: 'ingresses', namespace: 'apps', name: 'web' },
      },
    ]);
  });
});
