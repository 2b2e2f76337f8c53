import { nameRule } from './builtin-validation.js';
import type { ResourceType } from './resource-type.js';
import { applySchema, countCelRules } from './schema.js';
import { ApiError, errors, type StatusCause } from './status.js';
import type { KubeObject } from './types.js';

/** Size limits of a real API server (and of the etcd behind it). */
export const limits = {
  /** kube-apiserver's MaxRequestBodyBytes for write requests. */
  requestBodyBytes: 3 * 1024 * 1024,
  /** etcd's default --max-request-bytes (1.5 MiB) — what one stored object may weigh. */
  objectBytes: 1.5 * 1024 * 1024,
  /** metadata.annotations: keys and values together. */
  annotationBytes: 256 * 1024,
  /** ConfigMap and Secret data. */
  dataBytes: 1024 * 1024,
} as const;

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Reads ?fieldValidation= (default Warn, as on a real server since v1.27); 400 for anything else. */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const v = query.get('fieldValidation') ?? 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw errors.badRequest(`fieldValidation parameter unsupported: ${v}`);
}

function nameCauses(t: ResourceType, obj: KubeObject): StatusCause[] {
  const name = obj.metadata.name ?? '';
  // Custom resources are named as DNS-1123 subdomains, like most built-in kinds.
  const rule = nameRule(t.kind, t.crdName === undefined ? t.group : '');
  if (rule === undefined) return [];
  return rule(name).map((why) => ({
    reason: 'FieldValueInvalid',
    field: 'metadata.name',
    message: `metadata.name: Invalid value: ${JSON.stringify(name)}: ${why}`,
  }));
}

function sizeCauses(t: ResourceType, obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const ann = obj.metadata.annotations ?? {};
  const annBytes = Object.entries(ann).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)),
    0,
  );
  if (annBytes > limits.annotationBytes) {
    causes.push({
      reason: 'FieldValueTooLong',
      field: 'metadata.annotations',
      message: `metadata.annotations: Too long: may not be more than ${limits.annotationBytes} bytes`,
    });
  }
  if ((t.kind === 'ConfigMap' || t.kind === 'Secret') && t.group === '') {
    let total = 0;
    for (const f of ['data', 'binaryData', 'stringData']) {
      const m = obj[f];
      if (m && typeof m === 'object')
        for (const [k, v] of Object.entries(m)) total += k.length + String(v).length;
    }
    if (total > limits.dataBytes) {
      causes.push({
        reason: 'FieldValueTooLong',
        field: '',
        message: `Too long: may not be more than ${limits.dataBytes} bytes`,
      });
    }
  }
  return causes;
}

/** Outcome of checking an incoming object: the object to store and the warnings to return. */
export interface Checked {
  readonly object: KubeObject;
  readonly warnings: string[];
}

/**
 * Checks an object before it is stored: name, size limits, and for CRDs the structural schema
 * (pruning, defaults, unknown fields according to fieldValidation).
 */
export function checkObject(
  t: ResourceType,
  obj: KubeObject,
  fv: FieldValidation,
  creating: boolean,
): Checked {
  const warnings: string[] = [];
  let out = obj;
  const causes: StatusCause[] = creating ? nameCauses(t, obj) : [];
  const schema = t.schema ?? t.decodeSchema;
  if (schema) {
    const r = applySchema(obj, schema, !t.schema);
    if (r.decodeErrors.length) {
      throw new ApiError(
        400,
        'BadRequest',
        `${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: ${r.decodeErrors[0]!}`,
      );
    }
    if (r.unknownFields.length && fv === 'Strict') {
      const list = r.unknownFields.map((f) => `unknown field "${f}"`).join(', ');
      throw new ApiError(
        400,
        'BadRequest',
        `${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: strict decoding error: ${list}`,
      );
    }
    if (fv === 'Warn') warnings.push(...r.unknownFields.map((f) => `unknown field "${f}"`));
    causes.push(
      ...r.errors.map((e) => ({ reason: 'FieldValueInvalid', field: e.field, message: e.message })),
    );
    out = r.value as KubeObject;
  }
  if (t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io') {
    const rules = countCelRules(out.spec);
    if (rules > 0) {
      warnings.push(
        `kube-sim does not evaluate x-kubernetes-validations (CEL): ${rules} rule(s) of this CRD are not enforced`,
      );
    }
  }
  if (t.validate)
    causes.push(...t.validate(out).map((e) => ({ reason: 'FieldValueInvalid', ...e })));
  causes.push(...sizeCauses(t, out));
  if (causes.length) throw errors.invalid(t.kind, t.group, obj.metadata.name ?? '', causes);
  if (Buffer.byteLength(JSON.stringify(out)) > limits.objectBytes) throw errors.etcdTooLarge();
  return { object: out, warnings };
}

/** Update-only rules of built-in kinds that kube-sim enforces (ConfigMap and Secret `immutable`). */
export function checkUpdate(t: ResourceType, next: KubeObject, old: KubeObject): void {
  if (t.group !== '' || (t.kind !== 'ConfigMap' && t.kind !== 'Secret') || old.immutable !== true)
    return;
  const forbidden = (field: string) => ({
    reason: 'FieldValueForbidden',
    field,
    message: `${field}: Forbidden: field is immutable when \`immutable\` is set`,
  });
  const causes: StatusCause[] = [];
  if (next.immutable !== true) causes.push(forbidden('immutable'));
  for (const f of ['data', 'binaryData']) {
    if (JSON.stringify(next[f] ?? {}) !== JSON.stringify(old[f] ?? {})) causes.push(forbidden(f));
  }
  if (causes.length) throw errors.invalid(t.kind, t.group, old.metadata.name ?? '', causes);
}
