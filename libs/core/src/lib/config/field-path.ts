/**
 * The field-path dialect of HAPTIC's `indexBy` and ignore lists: dot-separated names, with
 * bracket-quoted keys where a key holds dots or slashes, and no leading `$`:
 * `metadata.namespace`, `metadata.labels['kubernetes.io/service-name']`, `spec.ports[0].port`.
 */
export type FieldPath = readonly (string | number)[];

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*/;
const QUOTED = /^\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/;
const INDEX = /^\[(\d+)\]/;

/** Parses a field path into its segments; undefined when the text is not in the dialect. */
export function parseFieldPath(text: string): FieldPath | undefined {
  const segments: (string | number)[] = [];
  let rest = text.trim();
  if (rest === '' || rest.startsWith('$') || rest.startsWith('.')) return undefined;
  let first = true;
  while (rest !== '') {
    if (!first && rest.startsWith('.')) {
      rest = rest.slice(1);
      const m = NAME.exec(rest);
      if (!m) return undefined;
      segments.push(m[0]);
      rest = rest.slice(m[0].length);
    } else if (first && NAME.test(rest)) {
      const m = NAME.exec(rest)!;
      segments.push(m[0]);
      rest = rest.slice(m[0].length);
    } else if (QUOTED.test(rest)) {
      const m = QUOTED.exec(rest)!;
      const key = (m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1');
      if (key === '') return undefined;
      segments.push(key);
      rest = rest.slice(m[0].length);
    } else if (INDEX.test(rest)) {
      const m = INDEX.exec(rest)!;
      segments.push(Number(m[1]));
      rest = rest.slice(m[0].length);
    } else {
      return undefined;
    }
    first = false;
  }
  return segments;
}

/** The reason a field path is refused, or undefined when it is fine. */
export function fieldPathProblem(text: unknown): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return 'not a valid path (it is empty)';
  return parseFieldPath(text) === undefined
    ? "not a valid path (write it like metadata.namespace or metadata.labels['app.kubernetes.io/name'])"
    : undefined;
}

/** Reads the value at a parsed path; undefined when any step is missing. */
export function readFieldPath(obj: unknown, path: FieldPath): unknown {
  let current: unknown = obj;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** Returns a copy of `obj` without the field at `path` (objects along the way are copied, not mutated). */
export function withoutFieldPath<T>(obj: T, path: FieldPath): T {
  const [head, ...tail] = path;
  if (head === undefined || obj === null || typeof obj !== 'object') return obj;
  const source = obj as Record<string | number, unknown>;
  if (!(head in source)) return obj;
  if (Array.isArray(obj)) {
    const copy = [...(obj as unknown[])];
    if (tail.length === 0) copy.splice(Number(head), 1);
    else copy[Number(head)] = withoutFieldPath(copy[Number(head)], tail);
    return copy as T;
  }
  // Built key by key, never with `delete`: a deleted property turns the copy into a dictionary
  // object (about 440 bytes more for each of 10,000s of stored objects' metadata).
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (key !== String(head)) copy[key] = source[key];
    else if (tail.length > 0) copy[key] = withoutFieldPath(source[key], tail);
  }
  return copy as T;
}
