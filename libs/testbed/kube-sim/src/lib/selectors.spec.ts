import { describe, expect, it } from 'vitest';
import { builtinTypes } from './builtins.js';
import { ApiError } from './status.js';
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { KubeObject } from './types.js';

const labels = { app: 'web', tier: 'front', version: '3' };

describe('label selectors', () => {
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=api', true],
    ['app in (api, web)', true],
    ['app notin (api,web)', false],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['missing', false],
    ['missing!=x', true],
    ['app=web,tier in (front),!missing', true],
    ['app=web,tier=back', false],
    ['version>2', true],
    ['version<3', false],
    ['', true],
  ])('%s -> %s', (sel, want) => {
    expect(matchLabels(parseLabelSelector(sel), labels)).toBe(want);
  });

  it('refuses a malformed selector with 400', () => {
    expect(() => parseLabelSelector('app=we b')).toThrow(ApiError);
    expect(() => parseLabelSelector('-bad=x')).toThrow(/invalid label key/);
  });
});

describe('field selectors', () => {
  const pods = builtinTypes().find((t) => t.kind === 'Pod')!;
  const svc = builtinTypes().find((t) => t.kind === 'Service')!;
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns' },
    spec: { nodeName: 'n1' },
    status: { phase: 'Running' },
  };

  it('supports metadata.name/namespace everywhere and kind-specific fields', () => {
    expect(
      matchFields(parseFieldSelector('metadata.name=p,metadata.namespace==ns', pods), pod),
    ).toBe(true);
    expect(
      matchFields(parseFieldSelector('spec.nodeName=n1,status.phase!=Pending', pods), pod),
    ).toBe(true);
    expect(matchFields(parseFieldSelector('spec.nodeName=n2', pods), pod)).toBe(false);
    expect(matchFields(parseFieldSelector('status.podIP=', pods), pod)).toBe(true); // missing reads as ""
  });

  it('answers the real 400 for a field the kind does not support', () => {
    try {
      parseFieldSelector('spec.nodeName=n1', svc);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).code).toBe(400);
      expect((e as ApiError).message).toBe('field label not supported: spec.nodeName');
    }
  });
});
