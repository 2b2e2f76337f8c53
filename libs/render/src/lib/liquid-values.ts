// Liquid's own value semantics, for typed code that must decide exactly as the templates did.

/** Liquid output text of a value (`append: ""`): nil is "", arrays join, others String(). */
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(str).join('');
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  return String(v);
}

/** Liquid's `split` (trailing empty parts dropped, as Ruby does). */
export function liquidSplit(v: unknown, sep: string): string[] {
  const parts = str(v).split(sep);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Liquid's `default`: the fallback for nil, false, and empty strings or arrays. */
export function orDefault(v: unknown, fallback: unknown): unknown {
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0 ? v : fallback;
  return v === null || v === undefined || v === false ? fallback : v;
}

/** Liquid's `== blank`: nil, false, a blank string, an empty array or object. */
export function isBlank(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

/** Liquid's `== nil`. */
export function isNil(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/** A property of a value that may be anything (templates read fields leniently). */
export function field(v: unknown, key: string): unknown {
  return v !== null && typeof v === 'object' && Object.hasOwn(v, key)
    ? (v as Record<string, unknown>)[key]
    : undefined;
}

/** A nested property path, leniently. */
export function path(v: unknown, ...keys: string[]): unknown {
  let at = v;
  for (const k of keys) at = field(at, k);
  return at;
}

/** The elements Liquid's `for` visits: arrays as they are, nil as none, objects as entries. */
export function items(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return v.length > 0 ? [v] : [];
  if (typeof v === 'object') return Object.entries(v);
  return [];
}

/** Code-unit order (Liquid's `sort` on strings). */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
