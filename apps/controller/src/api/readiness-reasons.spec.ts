import { describe, expect, it } from 'vitest';
import type { ConfigWatchStatus, WatchStatus } from '#watch';
import { readinessReasons } from './readiness-reasons.js';

const server = 'https://api.example:6443';
const config = (over: Partial<ConfigWatchStatus>): ConfigWatchStatus => ({
  phase: 'watching',
  message: '',
  relists: 0,
  restarts: 0,
  lastError: '',
  ref: { namespace: 'haptic', name: 'edge' },
  found: true,
  server,
  ...over,
});
const inputs = { rejected: undefined, accepted: true, watches: [] as WatchStatus[] };

describe('readinessReasons', () => {
  it('names the API server and what it answered', () => {
    const reasons = (c: Partial<ConfigWatchStatus>) =>
      readinessReasons({ ...inputs, config: config(c) });
    expect(reasons({ phase: 'backoff', message: 'connect ECONNREFUSED' })).toEqual([
      `API server ${server} does not answer or fails (connect ECONNREFUSED); retrying with backoff`,
    ]);
    expect(reasons({ phase: 'unauthorized' })[0]).toContain(`${server} refused the credentials`);
    expect(reasons({ phase: 'forbidden' })[0]).toContain(
      'forbids listing HAProxyTemplateConfig haptic/edge',
    );
    expect(reasons({ phase: 'not-found', found: false })).toEqual([
      `API server ${server} has no HAProxyTemplateConfig CRD (haproxytemplateconfigs.haproxy-haptic.org/v1alpha1): install it`,
    ]);
    expect(reasons({ phase: 'watching', found: false })).toEqual([
      `HAProxyTemplateConfig haptic/edge does not exist on ${server}`,
    ]);
    expect(reasons({ phase: 'listing', found: undefined })).toEqual([
      `listing HAProxyTemplateConfig haptic/edge on ${server}`,
    ]);
    expect(reasons({})).toEqual([]);
  });

  it('names an invalid first config and the watches not yet listed', () => {
    const watch = (resource: string, phase: WatchStatus['phase'], message = ''): WatchStatus => ({
      resource,
      phase,
      message,
      relists: 0,
      restarts: 0,
      lastError: '',
      streams: 1,
    });
    expect(
      readinessReasons({
        config: config({}),
        accepted: false,
        rejected: 'spec.podSelector: required',
        watches: [watch('ingresses', 'watching'), watch('gateways', 'forbidden', '403 Forbidden')],
      }),
    ).toEqual([
      'waiting for a valid HAProxyTemplateConfig: spec.podSelector: required',
      'watched resource gateways: forbidden (403 Forbidden)',
    ]);
  });
});
