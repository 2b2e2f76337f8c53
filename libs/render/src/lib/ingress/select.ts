// Which Ingresses an Ingress library serves (their class, or none with a default class of ours)
// and their order: oldest first, as `sort_by` orders creationTimestamp, namespace, name (its
// comparison itself, so the model and a template's `sort_by` can never disagree).
import { compareValues } from '../filters-data.js';
import { field, isBlank, orDefault, path } from '../liquid-values.js';

/** IngressClass selection: the names of ours and whether one of them is the default. */
export function ourClasses(classes: readonly object[], controller: unknown) {
  const names: unknown[] = [];
  let hasDefault = false;
  for (const ic of classes) {
    if (path(ic, 'spec', 'controller') !== controller) continue;
    names.push(path(ic, 'metadata', 'name'));
    const annotations = path(ic, 'metadata', 'annotations');
    if (field(annotations, 'ingressclass.kubernetes.io/is-default-class') === 'true')
      hasDefault = true;
  }
  return { names, hasDefault };
}

/** The sort keys of an Ingress (creationTimestamp, namespace, name), read once per object. */
const AGE = new WeakMap<object, readonly unknown[]>();
function ageOf(ing: object): readonly unknown[] {
  let keys = AGE.get(ing);
  if (!keys) {
    const m = field(ing, 'metadata');
    AGE.set(ing, (keys = [field(m, 'creationTimestamp'), field(m, 'namespace'), field(m, 'name')]));
  }
  return keys;
}

/** Oldest first (creationTimestamp, namespace, name). */
export function byAge(x: object, y: object): number {
  const a = ageOf(x);
  const b = ageOf(y);
  for (let i = 0; i < a.length; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return 0;
}

/** Whether an Ingress names one of our classes (or none, when one of ours is the default). */
export function selectedBy(classes: {
  names: unknown[];
  hasDefault: boolean;
}): (ing: object) => boolean {
  return (ing) => {
    const annotations = path(ing, 'metadata', 'annotations');
    const cls = orDefault(
      field(annotations, 'kubernetes.io/ingress.class'),
      path(ing, 'spec', 'ingressClassName'),
    );
    if (isBlank(cls)) return classes.hasDefault;
    return classes.names.includes(cls);
  };
}
