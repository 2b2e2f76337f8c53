import { isObject, jsonEqual } from './types.js';

/** An OpenAPI v3 structural schema as CRDs carry it (the subset kube-sim interprets). */
export interface StructuralSchema {
  type?: string;
  properties?: Record<string, StructuralSchema>;
  items?: StructuralSchema;
  additionalProperties?: StructuralSchema | boolean;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  default?: unknown;
  allOf?: StructuralSchema[];
  anyOf?: StructuralSchema[];
  oneOf?: StructuralSchema[];
  not?: StructuralSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: unknown[];
}

/** One field error, worded as the real API server words it. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** The outcome of checking an object against its schema. */
export interface SchemaResult {
  /** The object with unknown fields pruned, nulls dropped and defaults applied. */
  readonly value: unknown;
  readonly errors: FieldError[];
  /** Paths of fields the schema does not declare (pruned), e.g. `spec.foo`. */
  readonly unknownFields: string[];
  /** Wrong JSON types in a built-in kind (strict decoding only). */
  readonly decodeErrors: string[];
}

const q = (v: unknown) => JSON.stringify(v);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(s: StructuralSchema, v: unknown): boolean {
  if (s['x-kubernetes-int-or-string']) return typeof v === 'string' || Number.isInteger(v);
  if (!s.type) return true;
  const t = typeOf(v);
  return s.type === t || (s.type === 'number' && t === 'integer');
}

/** encoding/json's wording for a value of the wrong JSON type (built-in kinds). */
function goDecodeError(v: unknown, s: StructuralSchema, path: string): string {
  const t = typeOf(v);
  const got = t === 'integer' ? 'number' : t === 'boolean' ? 'bool' : t;
  const goTypes: Record<string, string> = {
    integer: 'int32',
    object: 'struct',
    array: 'slice',
    boolean: 'bool',
  };
  const want = s['x-kubernetes-int-or-string']
    ? 'intstr.IntOrString'
    : (goTypes[s.type ?? ''] ?? String(s.type));
  return `json: cannot unmarshal ${got} into Go struct field .${path.replace(/\[\d+\]/g, '')} of type ${want}`;
}

class Walker {
  readonly errors: FieldError[] = [];
  readonly unknown: string[] = [];
  /** Wrong JSON types found while decoding a built-in kind (a real server answers 400). */
  readonly decodeErrors: string[] = [];
  constructor(
    private readonly prune: boolean,
    private readonly decode = false,
  ) {}

  walk(v: unknown, s: StructuralSchema, path: string, root: boolean): unknown {
    if (this.decode && !typeMatches(s, v)) {
      // Quantities are strings that accept numbers; Go serialises them back as strings.
      if (s.type === 'string' && typeof v === 'number') return String(v);
      this.decodeErrors.push(goDecodeError(v, s, path));
      return v;
    }
    if (!typeMatches(s, v)) {
      const t = s['x-kubernetes-int-or-string'] ? 'integer or string' : s.type!;
      this.err(
        path,
        `Invalid value: "${typeOf(v)}": ${path} in body must be of type ${t}: "${typeOf(v)}"`,
      );
      return v;
    }
    this.values(v, s, path);
    if (Array.isArray(v)) return this.array(v, s, path);
    if (isObject(v)) return this.object(v, s, path, root);
    return v;
  }

  private object(
    v: Record<string, unknown>,
    s: StructuralSchema,
    path: string,
    root: boolean,
  ): unknown {
    const out: Record<string, unknown> = {};
    const props = s.properties ?? {};
    const ap = s.additionalProperties;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true || ap === true;
    const implicit =
      root || s['x-kubernetes-embedded-resource'] ? ['apiVersion', 'kind', 'metadata'] : [];
    for (const [k, val] of Object.entries(v)) {
      const child = path ? `${path}.${k}` : k;
      if (implicit.includes(k)) {
        out[k] = val; // apiVersion, kind and metadata follow ObjectMeta rules, not the schema
        continue;
      }
      const ps = props[k] ?? (isObject(ap) ? ap : undefined);
      if (val === null && !(ps?.nullable ?? false) && ps !== undefined) continue; // pruned, maybe defaulted below
      if (ps) out[k] = this.walk(val, ps, child, false);
      else if (preserve) out[k] = val;
      else if (this.prune) this.unknown.push(child);
      else out[k] = val;
    }
    for (const [k, ps] of Object.entries(props)) {
      if (out[k] === undefined && ps.default !== undefined) {
        out[k] = this.walk(structuredClone(ps.default), ps, path ? `${path}.${k}` : k, false);
      }
    }
    for (const r of s.required ?? []) {
      if (out[r] === undefined) this.err(path ? `${path}.${r}` : r, 'Required value');
    }
    const n = Object.keys(out).length;
    if (s.maxProperties !== undefined && n > s.maxProperties)
      this.err(path, `Too many: ${n}: must have at most ${s.maxProperties} items`);
    if (s.minProperties !== undefined && n < s.minProperties)
      this.err(
        path,
        `Invalid value: ${n}: ${path} in body should have at least ${s.minProperties} properties`,
      );
    return out;
  }

  private array(v: unknown[], s: StructuralSchema, path: string): unknown {
    const out = s.items ? v.map((x, i) => this.walk(x, s.items!, `${path}[${i}]`, false)) : v;
    if (s.maxItems !== undefined && v.length > s.maxItems)
      this.err(path, `Too many: ${v.length}: must have at most ${s.maxItems} items`);
    if (s.minItems !== undefined && v.length < s.minItems)
      this.err(
        path,
        `Invalid value: ${v.length}: ${path} in body should have at least ${s.minItems} items`,
      );
    const listType = s['x-kubernetes-list-type'];
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const id = (x: unknown) => (listType === 'map' && isObject(x) ? keys.map((k) => x[k]) : x);
    if (listType === 'set' || listType === 'map' || s.uniqueItems) {
      out.forEach((x, i) => {
        if (out.slice(0, i).some((y) => jsonEqual(id(x), id(y)))) {
          this.err(
            `${path}[${i}]`,
            `Duplicate value: ${listType === 'map' ? q(Object.fromEntries(keys.map((k, j) => [k, (id(x) as unknown[])[j]]))) : q(x)}`,
          );
        }
      });
    }
    return out;
  }

  /** Value validations shared by every type (enum, pattern, bounds, combinators). */
  private values(v: unknown, s: StructuralSchema, path: string): void {
    if (s.enum && !s.enum.some((e) => jsonEqual(e, v))) {
      this.err(path, `Unsupported value: ${q(v)}: supported values: ${s.enum.map(q).join(', ')}`);
    }
    if (typeof v === 'string') {
      const len = [...v].length;
      if (s.maxLength !== undefined && len > s.maxLength)
        this.err(path, `Too long: may not be more than ${s.maxLength} bytes`);
      if (s.minLength !== undefined && len < s.minLength)
        this.err(
          path,
          `Invalid value: ${q(v)}: ${path} in body should be at least ${s.minLength} chars long`,
        );
      if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v))
        this.err(path, `Invalid value: ${q(v)}: ${path} in body should match '${s.pattern}'`);
    }
    if (typeof v === 'number') {
      if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
        this.err(
          path,
          `Invalid value: ${v}: ${path} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`,
        );
      }
      if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
        this.err(
          path,
          `Invalid value: ${v}: ${path} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`,
        );
      }
      if (s.multipleOf !== undefined && v % s.multipleOf !== 0)
        this.err(
          path,
          `Invalid value: ${v}: ${path} in body should be a multiple of ${s.multipleOf}`,
        );
    }
    const passes = (sub: StructuralSchema) => validateOnly(v, sub, path).length === 0;
    if (s.allOf)
      for (const sub of s.allOf) for (const e of validateOnly(v, sub, path)) this.errors.push(e);
    if (s.anyOf && !s.anyOf.some(passes))
      this.err(
        path,
        `Invalid value: ${q(summary(v))}: ${path} in body must match at least one schema in anyOf`,
      );
    if (s.oneOf && s.oneOf.filter(passes).length !== 1)
      this.err(
        path,
        `Invalid value: ${q(summary(v))}: ${path} in body must validate one and only one schema (oneOf)`,
      );
    if (s.not && passes(s.not))
      this.err(
        path,
        `Invalid value: ${q(summary(v))}: ${path} in body should not be valid against the given schema`,
      );
  }

  private err(field: string, message: string): void {
    this.errors.push({ field, message: `${field}: ${message}` });
  }
}

function summary(v: unknown): unknown {
  return isObject(v) ? 'object' : Array.isArray(v) ? 'array' : v;
}

/** Validation of a value against a (value-validation) schema without pruning or defaulting. */
function validateOnly(v: unknown, s: StructuralSchema, path: string): FieldError[] {
  const w = new Walker(false);
  w.walk(v, s, path, false);
  return w.errors;
}

/**
 * Checks an object against a CRD's structural schema as the real API server does: drops nulls,
 * prunes (and reports) unknown fields, applies defaults, then validates what is left.
 */
export function applySchema(obj: unknown, schema: StructuralSchema, decode = false): SchemaResult {
  const w = new Walker(true, decode);
  const value = w.walk(obj, schema, '', true);
  return { value, errors: w.errors, unknownFields: w.unknown, decodeErrors: w.decodeErrors };
}

/** Counts x-kubernetes-validations (CEL) rules, which kube-sim does not evaluate. */
export function countCelRules(s: unknown): number {
  if (Array.isArray(s)) return s.reduce<number>((n, x) => n + countCelRules(x), 0);
  if (!isObject(s)) return 0;
  let n = Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'].length : 0;
  for (const [k, v] of Object.entries(s))
    if (k !== 'x-kubernetes-validations') n += countCelRules(v);
  return n;
}
