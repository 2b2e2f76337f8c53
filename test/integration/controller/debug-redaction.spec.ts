import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_BUS } from '#bus';
import { parseTemplateConfigText } from '#core';
import { RESOURCE_SINK, type HapticBus, type ResourceSink } from '#events';
import { IndexModule } from '#index';
import {
  startController,
  type RunningController,
} from '../../../apps/controller/src/run/controller-app.js';
import { resolveRunOptions } from '../../../apps/controller/src/run/run-options.js';

const PASSWORD = 'dp-pass-7f3a9c1e';

/** A real RSA key and self-signed certificate, as a TLS Secret holds them. */
function keyPair(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'debug-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2'],
        ...['-subj', '/CN=secure.example.com', '-keyout', join(dir, 'k.pem')],
        ...['-out', join(dir, 'c.pem')],
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'k.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'c.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Lines of the key body: any one of them in an answer means key material leaked. */
const keyBody = (pem: string) =>
  pem.split('\n').filter((l) => l.length >= 40 && !l.startsWith('-----'));

describe('/debug never shows credentials or private keys', () => {
  let c: RunningController;
  const { key, cert } = keyPair();
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  beforeAll(async () => {
    const options = resolveRunOptions(
      { address: '127.0.0.1', healthPort: '0', metricsPort: '0', logLevel: 'error' },
      {},
    );
    c = await startController(options, [IndexModule.forRoot()]);
    const bus = c.app.get<HapticBus>(EVENT_BUS);
    const sink = c.app.get<ResourceSink>(RESOURCE_SINK);
    sink.configure({
      secrets: { indexBy: ['metadata.namespace', 'metadata.name'], store: 'full' },
    });
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { namespace: 'apps', name: 'secure-tls' },
      data: { 'tls.crt': b64(cert), 'tls.key': b64(key) },
    };
    sink.reset('secrets', undefined, [secret]);
    sink.listed('secrets');
    const parsed = parseTemplateConfigText(`
credentialsSecretRef: { name: dp-creds }
podSelector: { matchLabels: { app: haproxy } }
watchedResources:
  secrets: { apiVersion: v1, resources: secrets, indexBy: [metadata.namespace, metadata.name] }
haproxyConfig: { template: "global\\n" }`);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    bus.setState('config.current', parsed.config);
    bus.setState('dataplane.credentials', { username: 'admin', password: PASSWORD });
    bus.setState('haproxy.pods', [
      { namespace: 'haptic', name: 'haproxy-0', address: '127.0.0.1', dataplanePort: 5555 },
    ]);
    const outputs = {
      haproxyConfig: 'global\n',
      maps: {},
      files: {},
      sslCertificates: { 'apps_secure-tls.pem': cert + key },
      crtLists: {},
    };
    bus.setState('render.rendered', { hash: 'h1', outputs, configGeneration: 1 });
    bus.setState('render.validated', { hash: 'h1', outputs, configGeneration: 1 });
    await bus.publish('deploy.completed', {
      pod: 'haptic/haproxy-0',
      hash: 'h1',
      reloaded: true,
      runtimeOperations: 0,
      durationMs: 12,
    });
    await bus.idle();
  });
  afterAll(async () => c?.stop());

  it('walks every route /debug lists: each answers, none holds the password or key material', async () => {
    const get = (path: string) => fetch(`http://127.0.0.1:${c.healthPort}${path}`);
    const { endpoints } = (await (await get('/debug')).json()) as { endpoints: string[] };
    expect(endpoints.length).toBeGreaterThanOrEqual(7);
    const bodies = new Map<string, string>();
    for (const path of endpoints) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      bodies.set(path, await res.text());
    }
    // the password and key as they are, and base64-encoded as a Secret holds them
    const leaks = [PASSWORD, b64(PASSWORD), ...keyBody(key), b64(key).slice(0, 64)];
    for (const [path, body] of bodies)
      for (const secret of leaks)
        expect({ path, leaked: body.includes(secret) }).toEqual({ path, leaked: false });
    // The views are not empty: the certificate (public) is shown, the key is marked redacted.
    expect(bodies.get('/debug/rendered')).toContain(keyBody(cert)[0]);
    expect(bodies.get('/debug/rendered')).toContain('<redacted>');
    expect(JSON.parse(bodies.get('/debug/resources')!)).toEqual({
      synced: true,
      counts: { secrets: 1 },
    });
    expect(JSON.parse(bodies.get('/debug/pods')!)).toMatchObject({
      pods: [{ name: 'haproxy-0', state: 'in-sync', lastDeployment: { reloaded: true } }],
    });
    expect(JSON.parse(bodies.get('/debug/diff')!)).toMatchObject({
      pods: [
        { pod: 'haptic/haproxy-0', upToDate: true, reload: expect.stringMatching(/reloaded/) },
      ],
    });
  });
});
