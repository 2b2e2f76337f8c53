import { describe, expect, it } from 'vitest';
import { matchesFieldTerms, parseFieldSelector, splitFieldSelector } from './field-selector.js';

describe('field selectors', () => {
  it('sends supported terms to the server and keeps the rest client-side', () => {
    const terms = parseFieldSelector(
      'metadata.name=a,status.phase!=Failed,spec.ingressClassName=haproxy',
    )!;
    const pods = splitFieldSelector({ apiVersion: 'v1', plural: 'pods' }, terms);
    expect(pods.server).toBe('metadata.name=a,status.phase!=Failed');
    expect(pods.client.map((t) => t.field)).toEqual(['spec.ingressClassName']);
    const ing = splitFieldSelector(
      { apiVersion: 'networking.k8s.io/v1', plural: 'ingresses' },
      terms,
    );
    expect(ing.server).toBe('metadata.name=a');
    expect(ing.client).toHaveLength(2);
    const crd = splitFieldSelector({ apiVersion: 'example.com/v1', plural: 'pods' }, terms);
    expect(crd.server).toBe('metadata.name=a');
  });

  it('matches like the API server, missing fields as empty', () => {
    const terms = parseFieldSelector('spec.ingressClassName=haproxy,spec.x!=1')!;
    const obj = (cls?: string) => ({
      metadata: { name: 'a' },
      spec: cls ? { ingressClassName: cls } : {},
    });
    expect(matchesFieldTerms(terms, obj('haproxy'))).toBe(true);
    expect(matchesFieldTerms(terms, obj('nginx'))).toBe(false);
    expect(matchesFieldTerms(parseFieldSelector('spec.ingressClassName=')!, obj())).toBe(true);
  });

  it('refuses malformed selectors', () => {
    expect(parseFieldSelector('a in (b)')).toBeUndefined();
    expect(parseFieldSelector('')).toEqual([]);
  });
});
