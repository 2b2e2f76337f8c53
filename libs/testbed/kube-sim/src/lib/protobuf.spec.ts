/* eslint-disable @typescript-eslint/no-explicit-any -- tests read API JSON loosely */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinSchema } from './builtin-schemas.js';
import { KubeSim } from './kube-sim.js';
import { decodeProtobuf, protobufTable } from './protobuf.js';
import type { StructuralSchema } from './schema.js';

/** Minimal protobuf writer for the tests (varint, length-delimited). */
const varint = (n: number): Buffer => {
  const out: number[] = [];
  let v = n;
  do {
    out.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v = Math.floor(v / 128);
  } while (v > 0);
  return Buffer.from(out);
};
const ld = (no: number, body: Buffer | string) => {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([varint((no << 3) | 2), varint(b.length), b]);
};
const vi = (no: number, n: number) => Buffer.concat([varint(no << 3), varint(n)]);
const envelope = (apiVersion: string, kind: string, body: Buffer) =>
  Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    ld(1, Buffer.concat([ld(1, apiVersion), ld(2, kind)])),
    ld(2, body),
  ]);

const generatorKinds = [
  'v1/Namespace',
  'v1/Service',
  'v1/Secret',
  'v1/ConfigMap',
  'v1/ServiceAccount',
  'v1/ResourceQuota',
  'apps/v1/Deployment',
  'batch/v1/Job',
  'batch/v1/CronJob',
  'networking.k8s.io/v1/Ingress',
  'rbac.authorization.k8s.io/v1/Role',
  'rbac.authorization.k8s.io/v1/RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  'policy/v1/PodDisruptionBudget',
  'scheduling.k8s.io/v1/PriorityClass',
];

/** Every property path of the schema that the protobuf message has no field for. */
function missing(
  schema: StructuralSchema | undefined,
  type: string,
  path: string,
  seen: Set<string>,
  top = false,
): string[] {
  const layout = protobufTable.types[type];
  if (!schema?.properties || !layout || seen.has(type)) return [];
  seen.add(type);
  const out: string[] = [];
  const byName = new Map<string, [string, string, string]>();
  const add = (t: string) => {
    for (const f of Object.values(protobufTable.types[t] ?? {}))
      if (f[2] === 'inline') add(f[1]);
      else byName.set(f[0], f);
  };
  add(type);
  for (const [prop, sub] of Object.entries(schema.properties)) {
    if (top && (prop === 'apiVersion' || prop === 'kind')) continue; // the envelope's TypeMeta
    const f = byName.get(prop);
    if (!f) {
      out.push(`${path}.${prop}`);
      continue;
    }
    const inner =
      sub.type === 'array'
        ? sub.items
        : isMap(sub)
          ? (sub.additionalProperties as StructuralSchema)
          : sub;
    out.push(...missing(inner, f[1], `${path}.${prop}`, seen));
  }
  return out;
}
const isMap = (s: StructuralSchema) => typeof s.additionalProperties === 'object';

describe('protobuf table', () => {
  it.each(generatorKinds)('has a field number for every property of %s', (gvk) => {
    const kind = gvk.split('/').pop()!;
    const schema = builtinSchema(kind);
    expect(schema, `builtin schema of ${kind}`).toBeDefined();
    expect(missing(schema, protobufTable.kinds[gvk]!, kind, new Set(), true)).toEqual([]);
  });

  it('decodes nested messages, maps, repeated fields, int-or-string and quantities', () => {
    const container = Buffer.concat([
      ld(1, 'web'),
      ld(2, 'nginx'),
      ld(6, Buffer.concat([ld(1, 'http'), vi(3, 80), ld(4, 'TCP')])),
      ld(8, Buffer.concat([ld(1, Buffer.concat([ld(1, 'cpu'), ld(2, ld(1, '100m'))]))])),
    ]);
    const deployment = Buffer.concat([
      ld(1, Buffer.concat([ld(1, 'web'), ld(11, Buffer.concat([ld(1, 'app'), ld(2, 'web')]))])),
      ld(2, Buffer.concat([vi(1, 0), ld(3, Buffer.concat([ld(2, ld(2, container))]))])),
    ]);
    const o: any = decodeProtobuf(envelope('apps/v1', 'Deployment', deployment));
    expect(o).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 0,
        template: {
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx',
                ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
                resources: { limits: { cpu: '100m' } },
              },
            ],
          },
        },
      },
    });
    const svc: any = decodeProtobuf(
      envelope(
        'v1',
        'Service',
        ld(2, ld(1, Buffer.concat([vi(3, 80), ld(4, Buffer.concat([vi(1, 1), ld(3, 'http')]))]))),
      ),
    );
    expect(svc.spec.ports).toEqual([{ port: 80, targetPort: 'http' }]);
  });

  it('refuses an unknown field number and an unknown kind', () => {
    expect(() =>
      decodeProtobuf(envelope('v1', 'ConfigMap', Buffer.concat([ld(1, ld(1, 'x')), ld(99, 'y')]))),
    ).toThrow('unknown field number 99 in protobuf message ConfigMap');
    expect(() => decodeProtobuf(envelope('v1', 'Pod', Buffer.alloc(0)))).toThrow(
      /not for Pod \(v1\)/,
    );
  });
});

describe('protobuf over HTTP', () => {
  let sim: KubeSim;
  beforeAll(async () => {
    sim = await KubeSim.start();
  });
  afterAll(async () => sim.stop());

  const post = (path: string, body: Buffer) =>
    fetch(sim.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      body,
    });

  it('creates from a protobuf body and answers 400 for an unknown field number, storing nothing', async () => {
    const ok = await post(
      '/api/v1/namespaces/default/configmaps',
      envelope(
        'v1',
        'ConfigMap',
        Buffer.concat([ld(1, ld(1, 'pb')), ld(2, Buffer.concat([ld(1, 'k'), ld(2, 'v')]))]),
      ),
    );
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as any).data).toEqual({ k: 'v' });
    const bad = await post(
      '/api/v1/namespaces/default/configmaps',
      envelope('v1', 'ConfigMap', Buffer.concat([ld(1, ld(1, 'bad')), ld(42, 'x')])),
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).message).toBe(
      'unknown field number 42 in protobuf message ConfigMap',
    );
    expect(sim.get('v1', 'ConfigMap', 'default', 'bad')).toBeUndefined();
  });
});
