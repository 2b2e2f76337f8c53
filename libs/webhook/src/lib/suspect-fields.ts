/** Annotations kubectl and helm write whose values legitimately hold newlines. */
const TOOL_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);
/** Any control character but TAB (a newline can end a haproxy.cfg line and start another). */
const hasControl = (s: string) => [...s].some((c) => c !== '\t' && (c < ' ' || c === '\x7f'));

const segment = (key: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `['${key}']`);

/**
 * Paths (`metadata.annotations['x']`, `spec.rules[0].host`) of the object's string values that
 * hold control characters (newlines included): the fields to name when a render containing the
 * object fails a check. `metadata.managedFields` and kubectl's last-applied copy are skipped.
 */
export function fieldsWithControlCharacters(object: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'string') {
      if (hasControl(v)) out.push(path);
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      const p = path === '' ? k : `${path}${segment(k)}`;
      if (p === 'metadata.managedFields') continue;
      if (path === 'metadata.annotations' && TOOL_ANNOTATIONS.has(k)) continue;
      walk(x, p);
    }
  };
  walk(object, '');
  return out;
}
