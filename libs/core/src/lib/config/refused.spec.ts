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

  it('refuses controller.status.publishService and addresses', () => {
    const status = { publishService: 'haptic/haproxy', addresses: ['192.0.2.1'] };
    expect(Object.keys(problems({ ...bare, controller: { status } }))).toEqual([
      'spec.controller.status.publishService',
      'spec.controller.status.addresses',
    ]);
    expect(parseTemplateConfig({ ...bare, controller: { status: { addresses: [] } } }).ok).toBe(
      true,
    );
  });
});
