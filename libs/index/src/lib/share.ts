// A watched object replaced by a newer version mostly repeats it (a status write changes the
// status and the resourceVersion, not the spec): the new version is stored with the old one's
// unchanged parts, so the two share them while something (the last render) still holds the old.

const isPlain = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

function sharedArray(old: readonly unknown[], next: readonly unknown[]): readonly unknown[] {
  const out = next.map((v, i) => sharedWith(old[i], v));
  if (out.length === old.length && out.every((v, i) => v === old[i])) return old;
  return out.every((v, i) => v === next[i]) ? next : out;
}

function sharedObject(old: object, next: object): object {
  const was = old as Record<string, unknown>;
  const oldKeys = Object.keys(was);
  const keys = Object.keys(next);
  let same = keys.length === oldKeys.length;
  let shares = false;
  const out: Record<string, unknown> = {};
  for (const [i, key] of keys.entries()) {
    const value = (next as Record<string, unknown>)[key];
    const shared = Object.hasOwn(was, key) ? sharedWith(was[key], value) : value;
    out[key] = shared;
    same &&= oldKeys[i] === key && shared === was[key];
    shares ||= shared !== value;
  }
  if (same) return old;
  return shares ? out : next;
}

/**
 * `next` with each part that equals the same part of `old` (same keys in the same order, same
 * values) replaced by old's; `old` itself when all of it is equal. Only plain objects and arrays
 * are descended into (watched objects are JSON); `next` is not changed, and is given back itself
 * where it shares nothing.
 */
export function sharedWith(old: unknown, next: unknown): unknown {
  if (old === next) return next;
  if (old === null || next === null || typeof old !== 'object' || typeof next !== 'object')
    return next;
  if (Array.isArray(next))
    return Array.isArray(old) ? sharedArray(old as unknown[], next as unknown[]) : next;
  if (Array.isArray(old) || !isPlain(old) || !isPlain(next)) return next;
  return sharedObject(old, next);
}
