import { parseFieldPath, readFieldPath, type FieldPath } from '#core';
import { toValue } from 'liquidjs';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { derivationOf, isFixed } from './derived-lists.js';
import { OutputLines, outputText, type LineEdit } from './escaper.js';
import { globMatch } from './glob.js';

type SortKey = { readonly path: FieldPath; readonly descending: boolean };

function sortKey(text: unknown): SortKey {
  const raw = String(text);
  const descending = raw.startsWith('-');
  const path = parseFieldPath(descending ? raw.slice(1) : raw);
  if (!path) throw new TypeError(`sort_by: not a field path: ${raw}`);
  return { path, descending };
}

/** How `sort_by` compares one key: missing last, numbers by value, others by code units. */
export function compareValues(a: unknown, b: unknown): number {
  const aMissing = a === undefined || a === null;
  const bMissing = b === undefined || b === null;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = typeof a === 'string' ? a : JSON.stringify(a);
  const sb = typeof b === 'string' ? b : JSON.stringify(b);
  // Code-unit order, not locale order: the same input sorts the same everywhere.
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** `sort_by: "metadata.namespace", "-spec.priority"`: stable multi-key sort, `-` for descending. */
export function sortBy(input: unknown, ...keys: unknown[]): unknown[] {
  const items = toArray(input);
  const parsed = keys.map(sortKey);
  if (parsed.length === 0) return [...items].sort(compareValues);
  return [...items].sort((x, y) => {
    for (const k of parsed) {
      const a = readFieldPath(x, k.path);
      const b = readFieldPath(y, k.path);
      // Missing values go last in either direction.
      const missing = Number(a === undefined || a === null) - Number(b === undefined || b === null);
      if (missing !== 0) return missing;
      const c = compareValues(a, b);
      if (c !== 0) return k.descending ? -c : c;
    }
    return 0;
  });
}

function toArray(input: unknown): readonly unknown[] {
  const v: unknown = toValue(input);
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** `glob_match: "backends-*"`: true when the text matches the glob. */
export function globMatchFilter(input: unknown, glob: unknown): boolean {
  return globMatch(String(toValue(input) ?? ''), String(glob));
}

function regex(pattern: unknown, flags: unknown, extra = ''): RegExp {
  const f = typeof flags === 'string' ? flags : '';
  return new RegExp(String(pattern), [...new Set(f + extra)].join(''));
}

/** `regex_match: "^api\\."`: true when the regular expression matches somewhere. */
export function regexMatch(input: unknown, pattern: unknown, flags?: unknown): boolean {
  return regex(pattern, flags).test(String(toValue(input) ?? ''));
}

/** `regex_replace: "pattern", "replacement"`: replaces every match ($1 refers to groups). */
export function regexReplace(
  input: unknown,
  pattern: unknown,
  replacement: unknown,
  flags?: unknown,
): string {
  return String(toValue(input) ?? '').replace(regex(pattern, flags, 'g'), outputText(replacement));
}

/** `indent: 4`: indents every line but the first (`indent: 4, true` indents the first too). */
export function indent(input: unknown, width: unknown = 2, first: unknown = false): string {
  const pad = typeof width === 'string' ? width : ' '.repeat(Number(width) || 0);
  return String(toValue(input) ?? '')
    .split('\n')
    .map((line, i) => ((i > 0 || first === true) && line !== '' ? pad + line : line))
    .join('\n');
}

/** `to_yaml`: YAML text of a value. */
export function toYaml(input: unknown): string {
  return stringifyYaml(toValue(input) ?? null);
}

/** `from_json`: parses JSON text (an annotation, say); nil when it is not JSON. */
export function fromJson(input: unknown): unknown {
  try {
    return JSON.parse(String(toValue(input) ?? '')) as unknown;
  } catch {
    return undefined;
  }
}

/** `from_yaml`: parses YAML text; nil when it is not YAML. */
export function fromYaml(input: unknown): unknown {
  try {
    return parseYaml(String(toValue(input) ?? '')) as unknown;
  } catch {
    return undefined;
  }
}

/** The map line of one element, and whether it can be kept (computed from strings of a frozen object). */
function mapLine(item: unknown, k: string, v: string): { line: string; keeps: boolean } {
  const record = (item !== null && typeof item === 'object' ? item : {}) as Record<string, unknown>;
  const key = Object.hasOwn(record, k) ? record[k] : '';
  const value = Object.hasOwn(record, v) ? record[v] : '';
  const line = `${outputText(key)} ${outputText(value)}`;
  const keeps =
    record === item &&
    Object.isFrozen(item) &&
    typeof key === 'string' &&
    typeof value === 'string';
  return { line, keeps };
}

/** `map_lines` outputs of fixed lists (see derived-lists.ts) of kept lines, by fields. */
const MAP_LINES = new WeakMap<readonly unknown[], Map<string, OutputLines>>();

/** The output for a fixed list made from another one, updated from that one's; or undefined. */
function updatedLines(
  list: readonly unknown[],
  fields: string,
  k: string,
  v: string,
): OutputLines | undefined {
  const derivation = derivationOf(list);
  const base = derivation && MAP_LINES.get(derivation.from)?.get(fields);
  if (!derivation || !base) return undefined;
  const edits: LineEdit[] = [];
  for (const e of derivation.edits) {
    if (!e.item) {
      edits.push({ at: e.at });
      continue;
    }
    const { line, keeps } = mapLine(e.item, k, v);
    if (!keeps) return undefined;
    edits.push({ at: e.at, line });
  }
  return base.spliced(edits);
}

/**
 * `routes | map_lines: "key", "backend"`: one map-file line `<key> <value>` (then a newline)
 * per element, from two fields of each (a missing field prints as ""). One output instead
 * of a Liquid loop over thousands of entries; the escaper still checks every line. The same
 * list gives the same output object (its text and verdict kept); a list made from another by a
 * few edits (a route table after a one-Ingress change) gets that one's output, edited.
 */
export function mapLines(input: unknown, keyField: unknown, valueField: unknown): OutputLines {
  const k = String(keyField);
  const v = String(valueField);
  const list = toArray(input);
  const fields = `${k}\u0000${v}`;
  const outputs = MAP_LINES.get(list);
  const kept = outputs?.get(fields);
  if (kept) return kept;
  // A list its maker keeps as it is, of frozen elements, gives the same output every time.
  const fixed = isFixed(list);
  const updated = fixed ? updatedLines(list, fields, k, v) : undefined;
  if (updated) {
    keep(list, fields, updated);
    return updated;
  }
  const lines: string[] = [];
  let keeps = fixed;
  for (const item of list) {
    const one = mapLine(item, k, v);
    lines.push(one.line);
    keeps &&= one.keeps;
  }
  const out = new OutputLines(lines, '', '\n');
  if (keeps) keep(list, fields, out);
  return out;
}

function keep(list: readonly unknown[], fields: string, out: OutputLines): void {
  let outputs = MAP_LINES.get(list);
  if (!outputs) MAP_LINES.set(list, (outputs = new Map<string, OutputLines>()));
  outputs.set(fields, out);
}
