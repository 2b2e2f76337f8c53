import { describe, expect, it } from 'vitest';
import { credentialsFromSecret } from './credentials.js';
import { discoverHaproxyPods, podSelectorString } from './pods.js';
import type { KubeObject } from './ports.js';

function pod(
  name: string,
  opts: {
    ip?: string;
    ready?: boolean;
    deleting?: boolean;
    port?: number;
    container?: string;
  } = {},
): KubeObject {
  const container = opts.container ?? 'sidecar';
  return {
    metadata: {
      namespace: 'ns',
      name,
      uid: `u-${name}`,
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      containers: [
        { name: 'haproxy', ports: [{ containerPort: 80 }] },
        { name: container, ...(opts.port ? { ports: [{ containerPort: opts.port }] } : {}) },
      ],
    },
    status: {
      ...(opts.ip ? { podIP: opts.ip } : {}),
      containerStatuses: [
        { name: 'haproxy', ready: true },
        { name: container, ready: opts.ready ?? true },
      ],
    },
  };
}

describe('discoverHaproxyPods', () => {
  it('keeps pods with an address and a ready Dataplane container, sorted', () => {
    const pods = discoverHaproxyPods(
      [
        pod('z', { ip: '127.0.0.3', port: 5555 }),
        pod('a', { ip: '127.0.0.2', container: 'dataplane' }),
        pod('no-ip', { port: 5555 }),
        pod('not-ready', { ip: '127.0.0.4', port: 5555, ready: false }),
        pod('leaving', { ip: '127.0.0.5', port: 5555, deleting: true }),
        pod('no-dataplane', { ip: '127.0.0.6' }),
      ],
      5555,
    );
    expect(pods.map((p) => `${p.name}:${p.container}@${p.address}:${p.dataplanePort}`)).toEqual([
      'a:dataplane@127.0.0.2:5555',
      'z:sidecar@127.0.0.3:5555',
    ]);
  });

  it('turns a podSelector into a label selector string', () => {
    expect(
      podSelectorString({
        matchLabels: { app: 'haproxy' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'canary', operator: 'DoesNotExist' },
          { key: 'zone', operator: 'Exists' },
          { key: 'x', operator: 'NotIn', values: ['y'] },
        ],
      }),
    ).toBe('app=haproxy,tier in (a,b),!canary,zone,x notin (y)');
  });
});

describe('credentialsFromSecret', () => {
  it('reads data (base64) and stringData, and says what is missing', () => {
    const secret = (body: Record<string, unknown>): KubeObject => ({
      metadata: { name: 's', resourceVersion: '7' },
      ...body,
    });
    expect(
      credentialsFromSecret(
        secret({ data: { dataplane_username: btoa('u'), dataplane_password: btoa('p') } }),
        'ns/s',
      ),
    ).toEqual({ ok: true, credentials: { username: 'u', password: 'p', version: '7' } });
    expect(
      credentialsFromSecret(secret({ stringData: { dataplane_username: 'u' } }), 'ns/s'),
    ).toEqual({
      ok: false,
      reason: 'Secret ns/s lacks dataplane_username or dataplane_password',
    });
    expect(credentialsFromSecret(undefined, 'ns/s')).toEqual({
      ok: false,
      reason: 'Secret ns/s not found',
    });
  });
});
