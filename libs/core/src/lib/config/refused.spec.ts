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
  it('accepts enableValidationWebhook (the webhook serves it) and refuses a non-boolean', () => {
    const ingresses = { ...bare.watchedResources.ingresses, enableValidationWebhook: true };
    expect(problems({ ...bare, watchedResources: { ingresses } })).toEqual({});
    const bad = { ...ingresses, enableValidationWebhook: 'yes' };
    expect(Object.keys(problems({ ...bare, watchedResources: { ingresses: bad } }))).toEqual([
      'spec.watchedResources.ingresses.enableValidationWebhook',
    ]);
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

  it('refuses dataplane.tls.caSecretRef, accepts insecureSkipVerify', () => {
    const tls = (t: object) => ({ ...bare, dataplane: { scheme: 'https', tls: t } });
    expect(problems(tls({ caSecretRef: { name: 'ca' } }))).toEqual({
      'spec.dataplane.tls.caSecretRef': expect.stringMatching(/does not read a CA Secret/),
    });
    expect(problems(tls({ insecureSkipVerify: true }))).toEqual({});
  });
});
