import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  pathMapper,
  SERVICE_ACCOUNT_PATH,
  syncVolumes,
  volumeDir,
  VolumeMountError,
} from './pod-volumes.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
let secretData: Record<string, string> = { 'tls.crt': b64('CERT'), 'tls.key': b64('KEY') };
const ctx = {
  lookup: {
    secret: (_ns: string, name: string) => (name === 'tls' ? { data: secretData } : undefined),
    configMap: (_ns: string, name: string) =>
      name === 'cfg' ? { data: { 'app.yaml': 'a: 1' } } : undefined,
  },
  facts: { podIP: '127.0.10.9', hostIP: '127.0.0.1', nodeName: 'node-sim' },
  token: 'tok',
};

const pod: V1Pod = {
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'x' } },
  spec: {
    containers: [
      {
        name: 'c',
        volumeMounts: [
          { name: 'certs', mountPath: '/etc/ssl/app' },
          { name: 'cfg', mountPath: '/config', subPath: 'sub' },
        ],
      },
    ],
    volumes: [
      { name: 'certs', secret: { secretName: 'tls', defaultMode: 0o600 } },
      {
        name: 'cfg',
        configMap: { name: 'cfg', items: [{ key: 'app.yaml', path: 'sub/app.yaml' }] },
      },
      {
        name: 'info',
        downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] },
      },
      { name: 'scratch', emptyDir: {} },
    ],
  },
};

describe('pod volumes', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes Secret, ConfigMap and downward-API files, and rewrites them when the source changes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hns-test-'));
    expect(await syncVolumes(pod, dir, ctx)).toBe(4);
    expect(readFileSync(join(volumeDir(dir, 'certs'), 'tls.crt'), 'utf8')).toBe('CERT');
    expect(statSync(join(volumeDir(dir, 'certs'), 'tls.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(volumeDir(dir, 'cfg'), 'sub/app.yaml'), 'utf8')).toBe('a: 1');
    expect(readFileSync(join(volumeDir(dir, 'info'), 'labels'), 'utf8')).toBe('app="x"');
    expect(statSync(volumeDir(dir, 'scratch')).isDirectory()).toBe(true);
    expect(await syncVolumes(pod, dir, ctx)).toBe(0);
    secretData = { ...secretData, 'tls.crt': b64('NEW') };
    expect(await syncVolumes(pod, dir, ctx)).toBe(1);
    expect(readFileSync(join(volumeDir(dir, 'certs'), 'tls.crt'), 'utf8')).toBe('NEW');
  });

  it('refuses to mount a missing Secret', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hns-test-'));
    const broken: V1Pod = {
      ...pod,
      spec: { ...pod.spec!, volumes: [{ name: 'x', secret: { secretName: 'absent' } }] },
    };
    await expect(syncVolumes(broken, dir, ctx)).rejects.toBeInstanceOf(VolumeMountError);
  });

  it('maps container paths to the pod folder by the longest mount', () => {
    const map = pathMapper(pod.spec!.containers[0]!, '/pods/p1', '/pods/p1/sa');
    expect(map('/etc/ssl/app/tls.crt')).toBe('/pods/p1/v/certs/tls.crt');
    expect(map('/config/app.yaml')).toBe('/pods/p1/v/cfg/sub/app.yaml');
    expect(map(`${SERVICE_ACCOUNT_PATH}/token`)).toBe('/pods/p1/sa/token');
    expect(map('/usr/bin/env')).toBe('/usr/bin/env');
  });
});
