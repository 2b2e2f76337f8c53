import {
  childSchema,
  describePath,
  fieldsOf,
  fromFieldsV1,
  keyElement,
  listShape,
  removeAt,
  toFieldsV1,
  valueAt,
  type FieldSet,
} from './fieldset.js';
import type { ResourceType } from './resource-type.js';
import type { StructuralSchema } from './schema.js';
import { ApiError } from './status.js';
import { clone, isObject, jsonEqual, type KubeObject } from './types.js';

/** One `metadata.managedFields` entry. */
export interface ManagedEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

interface Owned {
  readonly entry: Omit<ManagedEntry, 'fieldsV1'>;
  set: FieldSet;
  touched: boolean;
}

/** Who writes: the manager, the (sub)resource, the version and the time. */
export interface Writer {
  readonly manager: string;
  readonly subresource: string | undefined;
  readonly apiVersion: string;
  readonly time: string;
}

/** Metadata the server owns: never part of a field set. */
const systemMeta = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
  'generateName',
];

/** The part of an object a write to the (sub)resource may own (status apart when it has /status). */
function domain(
  t: ResourceType,
  o: KubeObject,
  subresource: string | undefined,
): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = o;
  const meta = Object.fromEntries(
    Object.entries(metadata).filter(([k]) => !systemMeta.includes(k)),
  );
  if (subresource === 'status') return o.status === undefined ? {} : { status: o.status };
  if (t.statusSubresource) delete rest.status;
  return Object.keys(meta).length ? { metadata: meta, ...rest } : rest;
}

const schemaOf = (t: ResourceType) => t.schema;

function fieldsIn(t: ResourceType, o: KubeObject, subresource: string | undefined): FieldSet {
  return fieldsOf(domain(t, o, subresource), schemaOf(t), t.crdName === undefined);
}

function decode(o: KubeObject | undefined): Owned[] {
  const mf = o?.metadata.managedFields;
  if (!Array.isArray(mf)) return [];
  return mf.filter(isObject).map((e) => {
    const { fieldsV1, ...entry } = e as unknown as ManagedEntry;
    return { entry, set: fromFieldsV1(fieldsV1), touched: false };
  });
}

function encode(owned: Owned[]): ManagedEntry[] {
  return owned
    .filter((o) => o.set.size > 0)
    .map((o) => ({ ...o.entry, fieldsType: 'FieldsV1' as const, fieldsV1: toFieldsV1(o.set) }));
}

function entryFor(owned: Owned[], w: Writer, operation: 'Apply' | 'Update'): Owned {
  let e = owned.find(
    (o) =>
      o.entry.manager === w.manager &&
      o.entry.operation === operation &&
      o.entry.subresource === w.subresource,
  );
  if (!e) {
    e = {
      entry: {
        manager: w.manager,
        operation,
        apiVersion: w.apiVersion,
        time: w.time,
        fieldsType: 'FieldsV1',
        ...(w.subresource ? { subresource: w.subresource } : {}),
      },
      set: new Set(),
      touched: true,
    };
    owned.push(e);
  }
  return e;
}

const isItemMarker = (p: string) => p.endsWith(',"."]');

/**
 * managedFields after an ordinary write (create, update, patch): the writer (operation Update)
 * takes every field whose value it changed, other managers lose those, and every manager loses
 * the fields that are gone. Unchanged entries keep their time.
 */
export function trackUpdate(
  t: ResourceType,
  old: KubeObject | undefined,
  next: KubeObject,
  w: Writer,
): ManagedEntry[] {
  const owned = decode(old);
  const all = fieldsIn(t, next, undefined);
  if (t.statusSubresource) for (const p of fieldsIn(t, next, 'status')) all.add(p);
  const changed = new Set(
    [...all].filter((p) => {
      const path = JSON.parse(p) as string[];
      if (isItemMarker(p)) return valueAt(old, path.slice(0, -1)) === undefined;
      return old === undefined || !jsonEqual(valueAt(old, path), valueAt(next, path));
    }),
  );
  for (const o of owned) {
    const before = o.set.size;
    o.set = new Set([...o.set].filter((p) => all.has(p) && !changed.has(p)));
    if (o.set.size !== before) o.touched = true;
  }
  if (changed.size > 0) {
    const mine = entryFor(owned, w, 'Update');
    for (const p of changed) mine.set.add(p);
    mine.touched = true;
  }
  return encode(owned.map((o) => (o.touched ? { ...o, entry: touch(o.entry, w) } : o)));
}

function touch(e: Omit<ManagedEntry, 'fieldsV1'>, w: Writer): Omit<ManagedEntry, 'fieldsV1'> {
  return e.manager === w.manager ? { ...e, time: w.time, apiVersion: w.apiVersion } : e;
}

/** One field another manager owns with a different value than the applied configuration. */
interface Conflict {
  readonly manager: string;
  readonly apiVersion: string;
  readonly path: string;
}

function conflictError(conflicts: Conflict[]): ApiError {
  const byManager = new Map<string, Conflict[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c]);
  const n = conflicts.length;
  const parts = [...byManager].map(([m, cs]) =>
    cs.length === 1
      ? `conflict with "${m}" using ${cs[0]!.apiVersion}: ${cs[0]!.path}`
      : `conflicts with "${m}" using ${cs[0]!.apiVersion}:\n${cs.map((c) => `- ${c.path}`).join('\n')}`,
  );
  return new ApiError(
    409,
    'Conflict',
    `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${parts.join('\n')}`,
    {
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with "${c.manager}" using ${c.apiVersion}`,
        field: c.path,
      })),
    },
  );
}

/**
 * Server-side apply of `applied` by `w.manager` over `current` (undefined: create-on-apply).
 * Returns the merged object and its managedFields, or throws 409 Conflict (without `force`).
 */
export function serverSideApply(
  t: ResourceType,
  current: KubeObject | undefined,
  applied: KubeObject,
  w: Writer,
  force: boolean,
): { object: KubeObject; managedFields: ManagedEntry[] } {
  const owned = decode(current);
  const mine = entryFor(owned, w, 'Apply');
  const appliedSet = fieldsIn(t, applied, w.subresource);
  const conflicts: Conflict[] = [];
  for (const o of owned) {
    if (o === mine) continue;
    for (const p of appliedSet) {
      if (!o.set.has(p) || isItemMarker(p)) continue;
      const path = JSON.parse(p) as string[];
      if (jsonEqual(valueAt(current, path), valueAt(applied, path))) continue;
      if (force) {
        o.set.delete(p);
        o.touched = true;
      } else
        conflicts.push({
          manager: o.entry.manager,
          apiVersion: o.entry.apiVersion,
          path: describePath(path),
        });
    }
  }
  if (conflicts.length) throw conflictError(conflicts);
  const base = current
    ? clone(current)
    : { apiVersion: applied.apiVersion, kind: applied.kind, metadata: {} };
  const object = mergeApplied(
    base,
    domainOf(t, applied, w.subresource),
    t.schema,
    t.crdName === undefined,
  ) as KubeObject;
  const others = owned.filter((o) => o !== mine);
  const dropped = [...mine.set].filter((p) => !appliedSet.has(p));
  // List items first (whole), then fields (a field of a removed item is then already gone).
  const order = (p: string) => (isItemMarker(p) ? 0 : 1);
  for (const p of dropped.sort((a, b) => order(a) - order(b) || a.length - b.length)) {
    const prefix = isItemMarker(p) ? p.slice(0, -5) : p.slice(0, -1);
    const ownedElsewhere = others.some((o) =>
      [...o.set].some((q) => q === p || q.startsWith(`${prefix},`)),
    );
    if (!ownedElsewhere) {
      removeAt(object, JSON.parse(p) as string[]);
      pruneEmptyParents(object, JSON.parse(p) as string[], owned);
    }
  }
  mine.set = appliedSet;
  mine.touched = true;
  return {
    object,
    managedFields: encode(owned.map((o) => (o.touched ? { ...o, entry: touch(o.entry, w) } : o))),
  };
}

/** Removes maps and lists a removal left empty, unless someone owns them as a value. */
function pruneEmptyParents(object: KubeObject, path: string[], owned: Owned[]): void {
  let parent = path[path.length - 1] === '.' ? path.slice(0, -2) : path.slice(0, -1);
  while (parent.length > 1) {
    const v = valueAt(object, parent);
    const empty =
      (isObject(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
    const key = JSON.stringify(parent);
    if (!empty || owned.some((o) => o.set.has(key))) return;
    removeAt(object, parent);
    parent = parent.slice(0, -1);
    if (parent[parent.length - 1]?.startsWith('k:')) return;
  }
}

function domainOf(t: ResourceType, applied: KubeObject, subresource: string | undefined) {
  const d = domain(t, applied, subresource);
  return { ...d, metadata: { ...(isObject(d.metadata) ? d.metadata : {}) } };
}

/** Merges an applied configuration into an object: maps by key, associative lists by item key. */
export function mergeApplied(
  current: unknown,
  applied: unknown,
  schema: StructuralSchema | undefined,
  builtin: boolean,
  field = '',
): unknown {
  if (isObject(applied)) {
    const out: Record<string, unknown> = isObject(current) ? { ...current } : {};
    for (const [k, v] of Object.entries(applied)) {
      if (v === null || v === undefined) continue;
      out[k] = mergeApplied(out[k], v, childSchema(schema, k), builtin, k);
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(current)) {
    return mergeLists(current as unknown[], applied as unknown[], schema, builtin, field);
  }
  return clone(applied);
}

function mergeLists(
  current: unknown[],
  applied: unknown[],
  schema: StructuralSchema | undefined,
  builtin: boolean,
  field: string,
): unknown[] {
  const shape = listShape({ field, schema, builtin }, [...applied, ...current]);
  if (shape.kind === 'set')
    return [...applied, ...current.filter((c) => !applied.some((a) => jsonEqual(a, c)))];
  if (shape.kind !== 'map') return clone(applied);
  const key = (i: unknown) => keyElement(i as Record<string, unknown>, shape.keys);
  const merged = applied.map((a) => {
    const c = current.find((x) => key(x) === key(a));
    return mergeApplied(c, a, schema?.items, builtin);
  });
  return [...merged, ...current.filter((c) => !applied.some((a) => key(a) === key(c)))];
}
