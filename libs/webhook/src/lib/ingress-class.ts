type Obj = Readonly<Record<string, unknown>>;

const rec = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/**
 * Whether an Ingress belongs to a class this controller serves, by the same rule as the Ingress
 * library: the `kubernetes.io/ingress.class` annotation wins over `spec.ingressClassName`; a
 * named class is ours when an IngressClass of that name has `spec.controller` equal to
 * `controllerName`; a class-less Ingress is ours only when one of our classes is the default.
 */
export function servedByClass(
  ingress: unknown,
  ingressClasses: readonly unknown[],
  controllerName: string,
): boolean {
  const meta = rec(rec(ingress)['metadata']);
  const cls =
    text(rec(meta['annotations'])['kubernetes.io/ingress.class']) ||
    text(rec(rec(ingress)['spec'])['ingressClassName']);
  const ours = ingressClasses.filter((ic) => rec(rec(ic)['spec'])['controller'] === controllerName);
  if (cls === '')
    return ours.some(
      (ic) =>
        rec(rec(rec(ic)['metadata'])['annotations'])[
          'ingressclass.kubernetes.io/is-default-class'
        ] === 'true',
    );
  return ours.some((ic) => rec(rec(ic)['metadata'])['name'] === cls);
}
