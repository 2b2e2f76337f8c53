import { validateSync, type ValidationError } from 'class-validator';
import type { FieldProblem } from '../errors.js';
import { fieldsOf, type FieldMeta, type FieldShape } from './decorators.js';

type Class<T = object> = new () => T;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** `parent.key`, or `parent['key']` when the key is not a plain name. */
export function joinPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}['${key.replace(/'/g, "\\'")}']`;
}

function convert(
  shape: FieldShape,
  value: unknown,
  path: string,
  problems: FieldProblem[],
): unknown {
  switch (shape.kind) {
    case 'value':
      return value;
    case 'object':
      return materialise(shape.type(), value, path, problems) ?? value;
    case 'record': {
      if (!isPlainObject(value)) {
        problems.push({ path, reason: 'must be a map of names to objects' });
        return {};
      }
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value))
        out[k] = materialise(shape.type(), v, joinPath(path, k), problems);
      return out;
    }
    case 'array': {
      if (!Array.isArray(value)) {
        problems.push({ path, reason: 'must be a list' });
        return [];
      }
      return value.map((v, i) => materialise(shape.type(), v, joinPath(path, i), problems));
    }
  }
}

/** The most useful message of a failed property: "is required" beats everything else. */
function firstReason(error: ValidationError): string | undefined {
  const c = error.constraints ?? {};
  return c['isDefined'] ?? Object.values(c)[0];
}

function checkEach(meta: FieldMeta, value: unknown, path: string, problems: FieldProblem[]): void {
  if (!meta.each || !Array.isArray(value)) return;
  value.forEach((element, i) => {
    const reason = meta.each?.(element);
    if (reason !== undefined) problems.push({ path: joinPath(path, i), reason });
  });
}

/**
 * Builds an instance of a config class from plain input: defaults from the class, values from the
 * input, nested classes recursively. Every problem (unknown fields, class-validator failures,
 * element checks) is appended to `problems` with its full path; nothing stops at the first.
 */
export function materialise<T extends object>(
  type: Class<T>,
  input: unknown,
  path: string,
  problems: FieldProblem[],
): T | undefined {
  if (!isPlainObject(input)) {
    problems.push({ path, reason: 'must be an object' });
    return undefined;
  }
  const instance = new type() as Record<string, unknown>;
  const fields = new Map(fieldsOf(type).map((f) => [f.name, f]));
  for (const [key, value] of Object.entries(input)) {
    const meta = fields.get(key);
    const fieldPath = joinPath(path, key);
    if (!meta) {
      problems.push({
        path: fieldPath,
        reason: `unknown field (known fields: ${[...fields.keys()].join(', ')})`,
      });
      continue;
    }
    if (value === null || value === undefined) continue; // `key:` with no value keeps the default
    instance[key] = convert(meta.shape, value, fieldPath, problems);
    checkEach(meta, value, fieldPath, problems);
  }
  for (const error of validateSync(instance, { forbidUnknownValues: false })) {
    const reason = firstReason(error);
    if (reason !== undefined) problems.push({ path: joinPath(path, error.property), reason });
  }
  return instance as T;
}
