import { describe, expect, it } from 'vitest';
import { parseTemplateConfig } from './parse.js';

const bare = {
  credentialsSecretRef: { name: 'creds' },
  podSelector: { matchLabels: { app: 'haproxy' } },
  watchedResources: {
    ingresses: {
      apiVersion: 'networking.k8s.io/v1',
      resources: 'ingresses',
      indexBy: ['metadata.namespace'],
    },
  },
  haproxyConfig: { template: 'global\n' },
};

const problems = (spec: object) => {
  const r = parseTemplateConfig(spec);
  return r.ok ? {} : Object.fromEntries(r.problems.map((p) => [p.path, p.reason]));
};

describe('settings haptic does not act on yet are refused, not ignored', () => {
  it('refuses enableValidationWebhook: true, accepts false', () => {
    const ingresses = { ...bare.watchedResources.ingresses, enableValidationWebhook: true };
    expect(problems({ ...bare, watchedResources: { ingresses } })).toEqual({
      'spec.watchedResources.ingresses.enableValidationWebhook':
        'haptic has no admission webhook yet: set false (objects are still checked when rendered)',
    });
    const off = { ...ingresses, enableValidationWebhook: false };
    expect(parseTemplateConfig({ ...bare, watchedResources: { ingresses: off } }).ok).toBe(true);
  });

  it('accepts controller.status (publishService, addresses) and names a bad address', () => {
    const status = { publishService: 'haptic/haproxy', addresses: ['192.0.2.1', 'lb.example.com'] };
    expect(parseTemplateConfig({ ...bare, controller: { status } }).ok).toBe(true);
    expect(problems({ ...bare, controller: { status: { addresses: ['a b'] } } })).toEqual({
      'spec.controller.status.addresses': 'each must be an IP address or a DNS name',
    });
    expect(problems({ ...bare, controller: { status: { publishService: 'haproxy' } } })).toEqual({
      'spec.controller.status.publishService': 'must be namespace/name',
    });
  });
});
