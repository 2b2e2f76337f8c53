import { errors } from './status.js';
import { clone, isObject, jsonEqual } from './types.js';

/**
 * Strategic merge patch, approximated: instead of the Go struct tags of every built-in type, lists
 * merge by key according to the field's name (the patchMergeKey the real types use for those
 * fields); every other list is replaced, as atomic lists are. Directives: `$patch: replace|delete`,
 * `$retainKeys`, `$setElementOrder/<field>`, `$deleteFromPrimitiveList/<field>`.
 */
const mergeKeys: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
  podIPs: 'ip',
  hostIPs: 'ip',
};

/** Primitive lists that merge as sets rather than being replaced. */
const mergedPrimitiveLists = new Set(['finalizers']);

/** The patchMergeKey of a list field (by field name, see above), if it merges by key. */
export function mergeKeyOf(field: string, items: readonly unknown[]): string | undefined {
  if (field === 'ports') {
    // Container ports merge on containerPort, Service ports on port (both patchMergeKey tags).
    return items.some((i) => isObject(i) && 'containerPort' in i) ? 'containerPort' : 'port';
  }
  return mergeKeys[field];
}

function mergeList(field: string, original: unknown, patch: unknown[], order: unknown): unknown[] {
  if (mergedPrimitiveLists.has(field) && patch.every((x) => !isObject(x))) {
    const base: unknown[] = Array.isArray(original) ? original : [];
    return [...base, ...patch.filter((x) => !base.some((b) => jsonEqual(b, x)))];
  }
  const key = mergeKeyOf(field, [
    ...patch,
    ...(Array.isArray(original) ? (original as unknown[]) : []),
  ]);
  if (!key || !patch.every(isObject)) return patch.filter((x) => !(isObject(x) && x.$patch));
  if (patch.some((p) => p.$patch === 'replace'))
    return patch.filter((p) => p.$patch !== 'replace').map(clone);
  const out = (Array.isArray(original) ? original : []).map(clone) as Record<string, unknown>[];
  for (const p of patch) {
    const idx = out.findIndex((o) => isObject(o) && jsonEqual(o[key], p[key]));
    if (p.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
    } else if (idx >= 0) out[idx] = strategicMerge(out[idx], p) as Record<string, unknown>;
    else out.push(strategicMerge({}, p) as Record<string, unknown>);
  }
  return Array.isArray(order) ? reorder(out, key, order) : out;
}

/** Applies `$setElementOrder`: listed keys first in the given order, the others after. */
function reorder(
  items: Record<string, unknown>[],
  key: string,
  order: unknown[],
): Record<string, unknown>[] {
  const rank = (o: Record<string, unknown>) => {
    const i = order.findIndex((e) => isObject(e) && jsonEqual(e[key], o[key]));
    return i < 0 ? order.length : i;
  };
  return [...items].sort((a, b) => rank(a) - rank(b));
}

/** Applies a strategic merge patch to `original` (neither argument is modified). */
export function strategicMerge(original: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return clone(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  let out: Record<string, unknown> = isObject(original) ? { ...original } : {};
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) {
    out = Object.fromEntries(Object.entries(out).filter(([k]) => retain.includes(k)));
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v))
        out[field] = cur.filter((x) => !v.some((d) => jsonEqual(d, x)));
      continue;
    }
    if (k.startsWith('$')) throw errors.badRequest(`unknown patch directive: ${k}`);
    if (v === null) delete out[k];
    else if (Array.isArray(v)) out[k] = mergeList(k, out[k], v, patch[`$setElementOrder/${k}`]);
    else if (isObject(v)) {
      const merged = strategicMerge(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else out[k] = v;
  }
  return out;
}
