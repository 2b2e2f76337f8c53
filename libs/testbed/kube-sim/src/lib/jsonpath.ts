import { isObject, jsonEqual } from './types.js';

/**
 * The JSONPath subset CRD printer columns use: `.a.b`, `[n]`, `[*]` and `[?(@.key=="value")]`
 * filters. Returns every match.
 */
export function jsonPathValues(obj: unknown, path: string): unknown[] {
  const tokens = path.match(/\.[^.[\]]+|\[[^\]]*\]/g) ?? [];
  let cur: unknown[] = [obj];
  for (const tok of tokens) {
    const next: unknown[] = [];
    for (const v of cur) step(v, tok, next);
    cur = next;
  }
  return cur;
}

function step(v: unknown, tok: string, out: unknown[]): void {
  if (tok.startsWith('.')) {
    const key = tok.slice(1);
    if (key === '*' && isObject(v)) out.push(...Object.values(v));
    else if (isObject(v) && v[key] !== undefined) out.push(v[key]);
    return;
  }
  const inner = tok.slice(1, -1);
  if (!Array.isArray(v)) return;
  const items = v as unknown[];
  if (inner === '*') {
    out.push(...items);
    return;
  }
  const filter = /^\?\(@\.([\w.-]+)\s*==\s*(?:"([^"]*)"|'([^']*)'|(\S+))\)$/.exec(inner);
  if (filter) {
    const want: unknown = filter[2] ?? filter[3] ?? JSON.parse(filter[4]!);
    for (const item of v)
      if (jsonEqual(jsonPathValues(item, `.${filter[1]!}`)[0], want)) out.push(item);
    return;
  }
  const i = Number(inner);
  if (Number.isInteger(i)) {
    const item = items[i < 0 ? items.length + i : i];
    if (item !== undefined) out.push(item);
  }
}
