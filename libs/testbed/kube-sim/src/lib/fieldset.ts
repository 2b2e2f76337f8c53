import type { StructuralSchema } from './schema.js';
import { mergeKeyOf } from './strategic-merge.js';
import { isObject, jsonEqual } from './types.js';

/**
 * Field sets as server-side apply tracks them: a set of paths, each path a list of FieldsV1
 * elements (`f:<field>`, `k:<json of the item's keys>`, `v:<json value>`, and `.` for a list item
 * itself). A path is stored as its JSON text so sets are plain `Set<string>`.
 */
export type FieldSet = Set<string>;
export type PathElement = string;

/** How a list merges: by key fields (associative), as a set of primitives, or whole (atomic). */
export type ListShape = { kind: 'map'; keys: string[] } | { kind: 'set' } | { kind: 'atomic' };

/** Where a list sits: its field name and (custom resources) its schema node. */
export interface ListContext {
  readonly field: string;
  readonly schema: StructuralSchema | undefined;
  /** Whether the kind is built in (list shapes from field names) or custom (from the schema). */
  readonly builtin: boolean;
}

/** The merge shape of a list: the schema's x-kubernetes-list-type, else (built-ins) by field name. */
export function listShape(ctx: ListContext, items: readonly unknown[]): ListShape {
  const lt = ctx.schema?.['x-kubernetes-list-type'];
  if (lt === 'map') return { kind: 'map', keys: ctx.schema?.['x-kubernetes-list-map-keys'] ?? [] };
  if (lt === 'set') return { kind: 'set' };
  if (lt === 'atomic' || !ctx.builtin) return { kind: 'atomic' };
  if (ctx.field === 'finalizers') return { kind: 'set' };
  const key = mergeKeyOf(ctx.field, items);
  if (key && items.every((i) => isObject(i) && i[key] !== undefined))
    return { kind: 'map', keys: [key] };
  return { kind: 'atomic' };
}

/** The schema node of a map's child. */
export function childSchema(
  s: StructuralSchema | undefined,
  key: string,
): StructuralSchema | undefined {
  if (!s) return undefined;
  if (s.properties?.[key]) return s.properties[key];
  return isObject(s.additionalProperties) ? s.additionalProperties : undefined;
}

/** The `k:` element naming a list item by its key fields. */
export function keyElement(item: Record<string, unknown>, keys: readonly string[]): PathElement {
  const o: Record<string, unknown> = {};
  for (const k of [...keys].sort()) o[k] = item[k];
  return `k:${JSON.stringify(o)}`;
}

/** Every leaf and list item of `value` (a map), each as a path below `prefix`. */
export function fieldsOf(
  value: Record<string, unknown>,
  schema: StructuralSchema | undefined,
  builtin: boolean,
  prefix: PathElement[] = [],
  out: FieldSet = new Set(),
): FieldSet {
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    const path = [...prefix, `f:${k}`];
    const sub = childSchema(schema, k);
    if (isObject(v) && Object.keys(v).length > 0) fieldsOf(v, sub, builtin, path, out);
    else if (Array.isArray(v) && v.length > 0)
      listFields(v, { field: k, schema: sub, builtin }, path, out);
    else out.add(JSON.stringify(path));
  }
  return out;
}

function listFields(items: unknown[], ctx: ListContext, path: PathElement[], out: FieldSet): void {
  const shape = listShape(ctx, items);
  if (shape.kind === 'atomic') {
    out.add(JSON.stringify(path));
    return;
  }
  for (const item of items) {
    if (shape.kind === 'set') {
      out.add(JSON.stringify([...path, `v:${JSON.stringify(item)}`]));
      continue;
    }
    const itemPath = [...path, keyElement(item as Record<string, unknown>, shape.keys)];
    out.add(JSON.stringify([...itemPath, '.']));
    fieldsOf(item as Record<string, unknown>, ctx.schema?.items, ctx.builtin, itemPath, out);
  }
}

/** Finds the list item an element names. */
function findItem(list: unknown[], el: PathElement): number {
  if (el.startsWith('k:')) {
    const want = JSON.parse(el.slice(2)) as Record<string, unknown>;
    return list.findIndex(
      (i) => isObject(i) && Object.entries(want).every(([k, v]) => jsonEqual(i[k], v)),
    );
  }
  if (el.startsWith('v:')) {
    const want: unknown = JSON.parse(el.slice(2));
    return list.findIndex((i) => jsonEqual(i, want));
  }
  return -1;
}

/** The value at a path, or undefined. */
export function valueAt(obj: unknown, path: readonly PathElement[]): unknown {
  let cur: unknown = obj;
  for (const el of path) {
    if (el === '.') return cur;
    if (el.startsWith('f:')) cur = isObject(cur) ? cur[el.slice(2)] : undefined;
    else if (Array.isArray(cur)) {
      const i = findItem(cur, el);
      cur = i < 0 ? undefined : cur[i];
    } else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Removes the field (or list item, for a path ending in `.` or `v:`) at a path, in place. */
export function removeAt(obj: unknown, path: readonly PathElement[]): void {
  const last = path[path.length - 1];
  const parentPath = last === '.' ? path.slice(0, -2) : path.slice(0, -1);
  const el = last === '.' ? path[path.length - 2]! : last!;
  const parent = valueAt(obj, parentPath);
  if (el.startsWith('f:')) {
    if (isObject(parent)) delete parent[el.slice(2)];
  } else if (Array.isArray(parent)) {
    const i = findItem(parent, el);
    if (i >= 0) parent.splice(i, 1);
  }
}

/** A path as the real server names it in conflict messages, e.g. `.spec.containers[name="a"].image`. */
export function describePath(path: readonly PathElement[]): string {
  let out = '';
  for (const el of path) {
    if (el === '.') continue;
    if (el.startsWith('f:')) out += `.${el.slice(2)}`;
    else if (el.startsWith('k:')) {
      const keys = JSON.parse(el.slice(2)) as Record<string, unknown>;
      out += `[${Object.entries(keys)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    } else if (el.startsWith('v:')) out += `[=${el.slice(2)}]`;
  }
  return out;
}

/** A field set as the FieldsV1 JSON tree `metadata.managedFields[].fieldsV1` holds. */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const p of [...set].sort()) {
    let node = root;
    for (const el of JSON.parse(p) as string[]) {
      node[el] ??= {};
      node = node[el] as Record<string, unknown>;
    }
  }
  return root;
}

/** The field set a FieldsV1 tree describes. */
export function fromFieldsV1(
  tree: unknown,
  prefix: PathElement[] = [],
  out: FieldSet = new Set(),
): FieldSet {
  if (!isObject(tree)) return out;
  for (const [el, sub] of Object.entries(tree)) {
    const path = [...prefix, el];
    if (el === '.' || !isObject(sub) || Object.keys(sub).length === 0)
      out.add(JSON.stringify(path));
    else fromFieldsV1(sub, path, out);
  }
  return out;
}
