// Test support for this lib's specs (named *.test.ts so the build leaves it out and vitest does not run it).
import type { RenderSpec } from './types.js';

/** A render spec with defaults around the given templates (test support). */
export function specOf(parts: {
  haproxy?: string;
  maps?: Record<string, string>;
  files?: Record<string, string>;
  certs?: Record<string, string>;
  snippets?: Record<string, string>;
  extra?: Record<string, unknown>;
}): RenderSpec {
  const rec = (r: Record<string, string> = {}): Record<string, { template: string }> =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { template: v }]));
  return {
    haproxyConfig: { template: parts.haproxy ?? '' },
    maps: rec(parts.maps),
    files: rec(parts.files),
    sslCertificates: rec(parts.certs),
    templateSnippets: rec(parts.snippets),
    templatingSettings: { extraContext: parts.extra ?? {} },
    watchedResources: {
      ingresses: {
        apiVersion: 'networking.k8s.io/v1',
        resources: 'ingresses',
        indexBy: ['metadata.namespace', 'metadata.name'],
        store: 'full',
        enableValidationWebhook: false,
      },
    },
    dataplane: {
      port: 5555,
      scheme: 'http',
      minDeploymentInterval: '500ms',
      driftPreventionInterval: '60s',
      deploymentTimeout: '30s',
      maxParallel: 10,
      mapsDir: '/etc/haproxy/maps',
      sslCertsDir: '/etc/haproxy/ssl',
      generalStorageDir: '/etc/haproxy/general',
      configFile: '/etc/haproxy/haproxy.cfg',
    },
  };
}
