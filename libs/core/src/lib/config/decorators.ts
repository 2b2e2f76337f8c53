import { registerDecorator, type ValidationOptions } from 'class-validator';
import { durationProblem } from './duration.js';
import { fieldPathProblem } from './field-path.js';
import { labelSelectorProblem } from './label-selector.js';

type Class<T = object> = new () => T;

/** How the walker treats a field's value: a plain value, one nested object, a record or a list of them. */
export type FieldShape =
  | { readonly kind: 'value' }
  | { readonly kind: 'object'; readonly type: () => Class }
  | { readonly kind: 'record'; readonly type: () => Class }
  | { readonly kind: 'array'; readonly type: () => Class };

export interface FieldMeta {
  readonly name: string;
  readonly doc: string;
  readonly shape: FieldShape;
  /** Checks each element of a list value; a reason for each bad one, reported as `path[i]`. */
  readonly each?: (value: unknown) => string | undefined;
}

const registry = new Map<object, Map<string, FieldMeta>>();

/** The documented fields of a config class, in declaration order (inherited fields first). */
export function fieldsOf(type: Class): readonly FieldMeta[] {
  const chain: object[] = [];
  for (let p: unknown = type; p && p !== Function.prototype; p = Object.getPrototypeOf(p)) {
    chain.unshift(p);
  }
  return chain.flatMap((c) => [...(registry.get(c)?.values() ?? [])]);
}

/** Declares a config field with its one-line doc; required for a field to be accepted at all. */
export function Field(
  doc: string,
  options: { shape?: FieldShape; each?: (value: unknown) => string | undefined } = {},
): PropertyDecorator {
  return (target, key) => {
    const ctor = target.constructor;
    const fields = registry.get(ctor) ?? new Map<string, FieldMeta>();
    const meta: FieldMeta = { name: String(key), doc, shape: options.shape ?? { kind: 'value' } };
    fields.set(String(key), options.each ? { ...meta, each: options.each } : meta);
    registry.set(ctor, fields);
  };
}

/** Shorthands for the nested shapes. */
export const nested = (type: () => Class): FieldShape => ({ kind: 'object', type });
export const recordOf = (type: () => Class): FieldShape => ({ kind: 'record', type });
export const listOf = (type: () => Class): FieldShape => ({ kind: 'array', type });

function fromProblem(
  name: string,
  problem: (value: unknown) => string | undefined,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target, key) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(key),
      options: { ...options },
      validator: {
        validate: (value: unknown) => problem(value) === undefined,
        defaultMessage: (args) => problem(args?.value) ?? 'invalid',
      },
    });
}

/** A duration such as `100ms`, `2s`, `1m`. */
export const IsDurationText = (o?: ValidationOptions): PropertyDecorator =>
  fromProblem('isDurationText', durationProblem, o);

/** A field path in HAPTIC's dialect. */
export const IsFieldPath = (o?: ValidationOptions): PropertyDecorator =>
  fromProblem('isFieldPath', fieldPathProblem, o);

/** A label selector string in full Kubernetes syntax. */
export const IsLabelSelector = (o?: ValidationOptions): PropertyDecorator =>
  fromProblem('isLabelSelector', labelSelectorProblem, o);

/** A plain JSON object (not an array, not null). */
export const IsPlainObject = (o?: ValidationOptions): PropertyDecorator =>
  fromProblem(
    'isPlainObject',
    (v) =>
      v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : 'must be an object',
    o,
  );

function labelMapProblem(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return 'must be a map of label keys to values';
  const entries = Object.entries(v);
  if (entries.length === 0) return 'must name at least one label';
  const bad = entries.find(([, value]) => typeof value !== 'string');
  return bad ? `label ${bad[0]} must have a string value` : undefined;
}

/** A non-empty map of label keys to string values. */
export const IsLabelMap = (o?: ValidationOptions): PropertyDecorator =>
  fromProblem('isLabelMap', labelMapProblem, o);

/** Element checks reused by list fields (reported per index by the walker). */
export { durationProblem, fieldPathProblem, labelSelectorProblem };

/**
 * A field the schema accepts but haptic does not act on yet: any value for which `problem` gives
 * a reason is refused with that reason, so a setting is never silently ignored.
 */
export const RefusedUnless = (
  problem: (value: unknown) => string | undefined,
  o?: ValidationOptions,
): PropertyDecorator => fromProblem('refusedUnless', problem, o);
