import type { ScaleTarget, Scope, WriteOutcome } from './api-types.js';
import { applyPatch } from './patch-dispatch.js';
import type { ResourceType, ScaleSpec } from './resource-type.js';
import { errors } from './status.js';
import { clone, isObject, type KubeObject } from './types.js';

/** The scale subresource of apps/v1 Deployment, ReplicaSet and StatefulSet. */
export const builtinScale: ScaleSpec = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.spec.selector',
};

const segments = (path: string) => path.split('.').filter((p) => p !== '');

function read(o: unknown, path: string): unknown {
  let cur = o;
  for (const k of segments(path)) cur = isObject(cur) ? cur[k] : undefined;
  return cur;
}

/** A LabelSelector in its string form, as Scale.status.selector carries it. */
export function selectorString(sel: unknown): string {
  if (typeof sel === 'string') return sel;
  if (!isObject(sel)) return '';
  const parts: string[] = [];
  if (isObject(sel.matchLabels))
    for (const [k, v] of Object.entries(sel.matchLabels)) parts.push(`${k}=${String(v)}`);
  if (Array.isArray(sel.matchExpressions)) {
    for (const e of sel.matchExpressions as unknown[]) {
      if (!isObject(e)) continue;
      const key = String(e.key);
      const values = Array.isArray(e.values) ? (e.values as unknown[]).map(String) : [];
      if (e.operator === 'Exists') parts.push(key);
      else if (e.operator === 'DoesNotExist') parts.push(`!${key}`);
      else parts.push(`${key} ${String(e.operator).toLowerCase()} (${values.join(',')})`);
    }
  }
  return parts.sort().join(',');
}

/** The autoscaling/v1 Scale of an object. */
export function toScale(spec: ScaleSpec, o: KubeObject): KubeObject {
  const m = o.metadata;
  const status: Record<string, unknown> = {
    replicas: Number(read(o, spec.statusReplicasPath) ?? 0),
  };
  if (spec.labelSelectorPath) {
    const sel = read(o, spec.labelSelectorPath);
    if (sel !== undefined) status.selector = selectorString(sel);
  }
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: {
      name: m.name!,
      ...(m.namespace ? { namespace: m.namespace } : {}),
      uid: m.uid!,
      resourceVersion: m.resourceVersion!,
      creationTimestamp: m.creationTimestamp!,
    },
    spec: { replicas: Number(read(o, spec.specReplicasPath) ?? 0) },
    status,
  };
}

function withReplicas(spec: ScaleSpec, o: KubeObject, n: number): KubeObject {
  const out = clone(o);
  const keys = segments(spec.specReplicasPath);
  let cur: Record<string, unknown> = out;
  for (const k of keys.slice(0, -1)) {
    if (!isObject(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = n;
  return out;
}

function replicasOf(t: ResourceType, scale: unknown, name: string): number {
  const r = isObject(scale) && isObject(scale.spec) ? scale.spec.replicas : undefined;
  const n = r === undefined ? 0 : r;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw errors.badRequest(
      `Scale in version "v1" cannot be handled as a Scale: spec.replicas must be an integer`,
    );
  if (n < 0)
    throw errors.invalid('Scale', 'autoscaling', name, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: `spec.replicas: Invalid value: ${n}: must be greater than or equal to 0`,
      },
    ]);
  void t;
  return n;
}

/** GET, PUT and PATCH of `<resource>/scale`: reads and writes the parent's replicas. */
export async function scaleRequest(
  api: ScaleTarget,
  s: Scope,
  method: string,
  body: unknown,
  contentType: string,
): Promise<WriteOutcome> {
  const spec = s.type.scale;
  if (!spec) throw errors.notFound(api.ref(s));
  const parentScope: Scope = { ...s, subresource: undefined };
  if (method === 'GET')
    return { code: 200, object: toScale(spec, api.get(parentScope)), warnings: [] };
  if (method !== 'PUT' && method !== 'PATCH') throw errors.methodNotAllowed();
  const out = await api.modify(s, (old) => {
    const current = toScale(spec, old);
    let next: unknown = body;
    if (method === 'PATCH') {
      if (contentType.startsWith('application/apply-patch+yaml'))
        throw errors.unsupportedMediaType(contentType, [
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/strategic-merge-patch+json',
        ]);
      next = applyPatch({ ...s.type, strategicMerge: true }, current, body, contentType);
    } else if (isObject(body) && body.kind !== undefined && body.kind !== 'Scale')
      throw errors.badRequest(
        `the kind in the data (${JSON.stringify(body.kind)}) does not match the expected kind (Scale)`,
      );
    const rv =
      isObject(next) && isObject(next.metadata) ? next.metadata.resourceVersion : undefined;
    if (typeof rv === 'string' && rv !== '' && rv !== old.metadata.resourceVersion)
      throw errors.conflict(api.ref(s));
    const n = replicasOf(s.type, next, old.metadata.name ?? '');
    return {
      proposed: withReplicas(spec, old, n),
      conditional: typeof rv === 'string' && rv !== '',
    };
  });
  return { ...out, object: toScale(spec, out.object) };
}
