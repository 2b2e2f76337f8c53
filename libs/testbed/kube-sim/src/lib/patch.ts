import { errors } from './status.js';
import { clone, isObject, jsonEqual } from './types.js';

/** RFC 7386 JSON merge patch: objects merge, null deletes, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw errors.badRequest(`invalid JSON pointer "${path}"`);
  return path.slice(1).split('/').map(unescapePointer);
}

interface Slot {
  parent: Record<string, unknown> | unknown[];
  key: string;
}

function locate(doc: unknown, path: string): Slot {
  const parts = parsePointer(path);
  if (parts.length === 0)
    throw errors.badRequest('JSON patch on the whole document is not supported');
  let cur: unknown = doc;
  for (const p of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = cur[p];
    else cur = undefined;
    if (cur === undefined) throw errors.invalidPatch(`doc is missing path: "${path}"`);
  }
  if (!Array.isArray(cur) && !isObject(cur))
    throw errors.invalidPatch(`doc is missing path: "${path}"`);
  return { parent: cur, key: parts[parts.length - 1]! };
}

function read(slot: Slot, path: string): unknown {
  const v = Array.isArray(slot.parent) ? slot.parent[Number(slot.key)] : slot.parent[slot.key];
  if (v === undefined) throw errors.invalidPatch(`doc is missing path: "${path}"`);
  return v;
}

function add(slot: Slot, value: unknown, path: string): void {
  if (Array.isArray(slot.parent)) {
    const i = slot.key === '-' ? slot.parent.length : Number(slot.key);
    if (!Number.isInteger(i) || i < 0 || i > slot.parent.length)
      throw errors.invalidPatch(`add operation does not apply: doc is missing path: "${path}"`);
    slot.parent.splice(i, 0, value);
  } else slot.parent[slot.key] = value;
}

function remove(slot: Slot, path: string): unknown {
  const v = read(slot, path);
  if (Array.isArray(slot.parent)) slot.parent.splice(Number(slot.key), 1);
  else delete slot.parent[slot.key];
  return v;
}

interface JsonPatchOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/** RFC 6902 JSON patch (add, remove, replace, move, copy, test). */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops))
    throw errors.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  const doc = clone(target);
  for (const raw of ops as JsonPatchOp[]) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw errors.badRequest('invalid JSON patch operation');
    }
    const path = raw.path;
    switch (raw.op) {
      case 'add':
        add(locate(doc, path), clone(raw.value), path);
        break;
      case 'remove':
        remove(locate(doc, path), path);
        break;
      case 'replace': {
        const slot = locate(doc, path);
        read(slot, path);
        if (Array.isArray(slot.parent)) slot.parent[Number(slot.key)] = clone(raw.value);
        else slot.parent[slot.key] = clone(raw.value);
        break;
      }
      case 'move':
      case 'copy': {
        const from = raw.from ?? '';
        const src = locate(doc, from);
        const v = raw.op === 'move' ? remove(src, from) : clone(read(src, from));
        add(locate(doc, path), v, path);
        break;
      }
      case 'test':
        if (!jsonEqual(read(locate(doc, path), path), raw.value))
          throw errors.invalidPatch(`testing value ${path} failed`);
        break;
      default:
        throw errors.badRequest(`Unexpected kind: ${raw.op}`);
    }
  }
  return doc;
}
