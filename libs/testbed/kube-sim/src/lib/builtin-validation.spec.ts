/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- tests read API JSON loosely */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { KubeSim } from './kube-sim.js';

let sim: KubeSim;
const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(sim.url, ...args);

beforeAll(async () => {
  sim = await KubeSim.start();
});
afterAll(async () => sim.stop());
beforeEach(async () => sim.reset());

const ingresses = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
const ingress = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name },
  spec,
});
const backend = { service: { name: 'web', port: { number: 80 } } };
const rule = (host: string | undefined, paths: Record<string, unknown>[]) => ({
  ...(host === undefined ? {} : { host }),
  http: { paths },
});
const causes = (r: { body: any }) =>
  (r.body.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

describe('API validation of built-in kinds', () => {
  it('names: DNS-1123 subdomain, DNS-1035 label for Services, RFC 1123 label for Namespaces', async () => {
    const cm = await call('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'Bad_Name' },
    });
    expect(cm.code).toBe(422);
    expect(cm.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      details: { name: 'Bad_Name', kind: 'ConfigMap' },
    });
    expect(causes(cm)).toEqual([
      `metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    const svc = await call('POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: '1web' },
      spec: { ports: [{ port: 80 }] },
    });
    expect(causes(svc)[0]).toMatch(/^metadata\.name: Invalid value: "1web": a DNS-1035 label/);
    const ns = await call('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'a.b' },
    });
    expect(causes(ns)[0]).toMatch(
      /^metadata\.name: Invalid value: "a\.b": a lowercase RFC 1123 label/,
    );
    const role = await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:Thing' },
    });
    expect(role.code).toBe(201);
  });

  it('Ingress hosts, paths, pathTypes and backends', async () => {
    const ok = await call(
      'POST',
      ingresses,
      ingress('ok', {
        rules: [
          rule('*.example.com', [{ path: '/', pathType: 'Prefix', backend }]),
          rule('a.example.com', [
            { path: '/x', pathType: 'Exact', backend },
            { pathType: 'ImplementationSpecific', backend: { ...backend } },
            {
              path: '/r',
              pathType: 'Prefix',
              backend: { resource: { apiGroup: 'x.io', kind: 'Bucket', name: 'b' } },
            },
            {
              path: '/n',
              pathType: 'Prefix',
              backend: { service: { name: 'web', port: { name: 'http' } } },
            },
          ]),
        ],
      }),
    );
    expect(ok.code).toBe(201);
    const bad = await call(
      'POST',
      ingresses,
      ingress('bad', {
        rules: [
          rule('Foo.example.com', [{ path: 'api', pathType: 'Prefix', backend }]),
          rule('a.*.com', [{ path: '/a', backend }]),
          rule('1.2.3.4', [
            { path: '/a', pathType: 'Regex', backend },
            { path: '/b//c', pathType: 'Exact', backend: { service: { name: 'web', port: {} } } },
            {
              path: '/c',
              pathType: 'Prefix',
              backend: { ...backend, resource: { kind: 'Bucket', name: 'b' } },
            },
            { path: '/d', pathType: 'Prefix', backend: {} },
          ]),
        ],
      }),
    );
    expect(bad.code).toBe(422);
    const got = causes(bad);
    expect(got).toEqual([
      expect.stringMatching(
        /^spec\.rules\[0\]\.host: Invalid value: "Foo\.example\.com": a lowercase RFC 1123 subdomain/,
      ),
      'spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path',
      expect.stringMatching(
        /^spec\.rules\[1\]\.host: Invalid value: "a\.\*\.com": a wildcard DNS-1123 subdomain must start with '\*\.'/,
      ),
      'spec.rules[1].http.paths[0].pathType: Required value: pathType must be specified',
      'spec.rules[2].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
      'spec.rules[2].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
      `spec.rules[2].http.paths[1].path: Invalid value: "/b//c": must not contain '//'`,
      'spec.rules[2].http.paths[1].backend: Required value: port name or number is required',
      'spec.rules[2].http.paths[2].backend: Invalid value: "": cannot set both resource and service backends',
      'spec.rules[2].http.paths[3].backend: Invalid value: "": resource or service backend is required',
    ]);
    expect(bad.body.message).toMatch(
      /^Ingress\.networking\.k8s\.io "bad" is invalid: \[spec\.rules\[0\]\.host: /,
    );
    // An update is validated too, and the stored object stays as it was.
    const upd = await call(
      'PATCH',
      `${ingresses}/ok`,
      {
        spec: {
          rules: [
            rule('x.example.com', [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'web', port: { number: 70000 } } },
              },
            ]),
          ],
        },
      },
      'application/merge-patch+json',
    );
    expect(causes(upd)).toEqual([
      'spec.rules[0].http.paths[0].backend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ]);
    expect((await call('GET', `${ingresses}/ok`)).body.spec.rules[0].host).toBe('*.example.com');
  });

  it('Service ports: range, names when more than one, unique names, protocol', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: {
        ports: [
          { name: 'http', port: 0 },
          { name: 'http', port: 81, protocol: 'HTTP' },
          { port: 82, targetPort: 'Not_A_Name' },
        ],
      },
    });
    expect(r.code).toBe(422);
    expect(causes(r)).toEqual([
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[1].name: Duplicate value: "http"',
      'spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[2].name: Required value',
      'spec.ports[2].targetPort: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
  });

  it('a kubernetes.io/tls Secret needs tls.crt and tls.key', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls' },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': 'x' },
    });
    expect(r.code).toBe(422);
    expect(causes(r)).toEqual(['data[tls.key]: Required value']);
    const ok = await call('POST', '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls' },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': 'x', 'tls.key': 'y' },
    });
    expect(ok.code).toBe(201);
  });
});
