import type { GatewayCondition, Meta, ObjectLike } from './types.js';

export const metaOf = (o: object): Meta => (o as ObjectLike).metadata ?? {};
export const specOf = <T>(o: object): Partial<T> => (o as ObjectLike).spec ?? {};
export const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

/** A condition with the object's generation. */
export function condition(
  type: string,
  ok: boolean,
  reason: string,
  message: string,
  generation: number,
): GatewayCondition {
  return { type, status: ok ? 'True' : 'False', reason, message, observedGeneration: generation };
}

/** Objects by namespace/name (cluster-scoped ones by name under the empty namespace). */
export function byKey(list: readonly object[]): Map<string, object> {
  const m = new Map<string, object>();
  for (const o of list) {
    const meta = metaOf(o);
    m.set(keyOf(meta.namespace ?? '', meta.name ?? ''), o);
  }
  return m;
}

interface Requirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly Requirement[];
}

function meets(labels: Readonly<Record<string, string>>, r: Requirement): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(value ?? '');
    case 'NotIn':
      return !has || !(r.values ?? []).includes(value ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/** metav1.LabelSelector semantics (an empty selector matches everything). */
export function selects(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {}))
    if (labels[k] !== v) return false;
  return (selector.matchExpressions ?? []).every((r) => meets(labels, r));
}

interface GrantFrom {
  readonly group?: string;
  readonly kind?: string;
  readonly namespace?: string;
}
interface GrantTo {
  readonly group?: string;
  readonly kind?: string;
  readonly name?: string;
}

export interface Reference {
  readonly fromGroup: string;
  readonly fromKind: string;
  readonly fromNamespace: string;
  readonly toGroup: string;
  readonly toKind: string;
  readonly toNamespace: string;
  readonly toName: string;
}

/** Is a cross-namespace reference allowed by a ReferenceGrant in the target namespace? */
export function granted(grants: readonly object[], ref: Reference): boolean {
  if (ref.fromNamespace === ref.toNamespace) return true;
  return grants.some((g) => {
    if (metaOf(g).namespace !== ref.toNamespace) return false;
    const spec = specOf<{ from: GrantFrom[]; to: GrantTo[] }>(g);
    const from = (spec.from ?? []).some(
      (f) =>
        (f.group ?? '') === ref.fromGroup &&
        f.kind === ref.fromKind &&
        f.namespace === ref.fromNamespace,
    );
    const to = (spec.to ?? []).some(
      (t) =>
        (t.group ?? '') === ref.toGroup &&
        t.kind === ref.toKind &&
        (t.name === undefined || t.name === '' || t.name === ref.toName),
    );
    return from && to;
  });
}

/** Compares by creation time, then namespace/name (the Gateway API's tie-breakers). */
export function olderFirst(a: object, b: object): number {
  const ma = metaOf(a);
  const mb = metaOf(b);
  const ta = ma.creationTimestamp ?? '';
  const tb = mb.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = keyOf(ma.namespace ?? '', ma.name ?? '');
  const kb = keyOf(mb.namespace ?? '', mb.name ?? '');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
