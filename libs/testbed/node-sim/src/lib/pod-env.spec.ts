import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  ContainerConfigError,
  containerEnv,
  expandVars,
  parseQuantity,
  type ObjectLookup,
} from './pod-env.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const lookup: ObjectLookup = {
  secret: (ns, name) =>
    ns === 'ns' && name === 'creds'
      ? { data: { user: b64('admin'), pass: b64('s3cret') } }
      : undefined,
  configMap: (ns, name) =>
    ns === 'ns' && name === 'cfg' ? { data: { level: 'debug', mode: 'fast' } } : undefined,
};
const facts = { podIP: '127.0.10.4', hostIP: '127.0.0.1', nodeName: 'node-sim' };

const pod = (container: NonNullable<V1Pod['spec']>['containers'][number]): V1Pod => ({
  metadata: {
    name: 'web-1',
    namespace: 'ns',
    uid: 'u-1',
    labels: { app: 'web' },
    annotations: { note: 'x' },
  },
  spec: { containers: [container], serviceAccountName: 'sa' },
});

describe('container environment', () => {
  it('fills the downward API, Secret and ConfigMap references, envFrom and $(VAR) expansion', () => {
    const container = {
      name: 'c',
      envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }],
      env: [
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
        { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        { name: 'USER', valueFrom: { secretKeyRef: { name: 'creds', key: 'user' } } },
        { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'level' } } },
        {
          name: 'MEM',
          valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } },
        },
        { name: 'URL', value: 'http://$(POD_IP):3000/$$(POD_IP)' },
      ],
      resources: { limits: { memory: '256Mi' } },
    };
    expect(containerEnv(pod(container), container, facts, lookup)).toEqual({
      CFG_level: 'debug',
      CFG_mode: 'fast',
      POD_NAME: 'web-1',
      POD_NAMESPACE: 'ns',
      POD_IP: '127.0.10.4',
      APP: 'web',
      NODE: 'node-sim',
      USER: 'admin',
      LEVEL: 'debug',
      MEM: '256',
      URL: 'http://127.0.10.4:3000/$(POD_IP)',
    });
  });

  it('fails like CreateContainerConfigError on a missing key unless optional', () => {
    const missing = {
      name: 'c',
      env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'creds', key: 'nope' } } }],
    };
    expect(() => containerEnv(pod(missing), missing, facts, lookup)).toThrow(ContainerConfigError);
    const optional = {
      name: 'c',
      env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'gone', key: 'k', optional: true } } }],
    };
    expect(containerEnv(pod(optional), optional, facts, lookup)).toEqual({});
  });

  it('parses quantities and leaves unknown variables alone', () => {
    expect(parseQuantity('1Gi')).toBe(1024 ** 3);
    expect(parseQuantity('250m')).toBe(0.25);
    expect(expandVars('$(A)-$(B)', { A: '1' })).toBe('1-$(B)');
  });
});
