import { jsonPathValues } from './jsonpath.js';
import { age, ageColumn, col } from './printers.js';
import type { FieldGetter, PrinterColumn, ResourceType } from './resource-type.js';
import type { StructuralSchema } from './schema.js';
import { errors, type StatusCause } from './status.js';
import { isObject, type KubeObject } from './types.js';

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: StructuralSchema };
  subresources?: {
    status?: object;
    scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: {
    name: string;
    type: string;
    format?: string;
    description?: string;
    priority?: number;
    jsonPath: string;
  }[];
  selectableFields?: { jsonPath: string }[];
}

interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: {
    plural: string;
    singular?: string;
    kind: string;
    listKind?: string;
    shortNames?: string[];
    categories?: string[];
  };
  versions: CrdVersion[];
  conversion?: { strategy?: string };
}

function cellValue(obj: KubeObject, path: string, type: string, now: number): unknown {
  const found = jsonPathValues(obj, path);
  if (found.length === 0) return null;
  if (found.length > 1)
    return found.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',');
  const v = found[0];
  if (type === 'date') return age(v, now);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return JSON.stringify(v);
}

function columns(v: CrdVersion): PrinterColumn[] {
  const defs = v.additionalPrinterColumns;
  if (!defs) return [ageColumn];
  return defs.map((d) => {
    const c = col(
      d.name,
      d.type,
      (o, now) => cellValue(o, d.jsonPath, d.type, now),
      d.priority ?? 0,
      d.description ?? '',
    );
    return d.format ? { ...c, format: d.format } : c;
  });
}

function selectable(v: CrdVersion): Record<string, FieldGetter> {
  const out: Record<string, FieldGetter> = {};
  for (const f of v.selectableFields ?? []) {
    out[f.jsonPath.replace(/^\./, '')] = (o) => {
      const x = jsonPathValues(o, f.jsonPath)[0];
      if (x === undefined || x === null) return undefined;
      return typeof x === 'string' ? x : JSON.stringify(x);
    };
  }
  return out;
}

/** Checks a CRD as the real API server does for the parts kube-sim relies on; 422 otherwise. */
export function validateCrd(crd: KubeObject): CrdSpec {
  const spec = crd.spec as CrdSpec | undefined;
  const causes: StatusCause[] = [];
  const bad = (field: string, message: string) =>
    causes.push({ field, message: `${field}: ${message}`, reason: 'FieldValueInvalid' });
  if (!isObject(spec)) bad('spec', 'Required value');
  else {
    if (!spec.group) bad('spec.group', 'Required value');
    if (!spec.names?.plural || !spec.names.kind)
      bad('spec.names', 'Required value: plural and kind are required');
    else if (crd.metadata.name !== `${spec.names.plural}.${spec.group}`) {
      bad(
        'metadata.name',
        `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group`,
      );
    }
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
      bad(
        'spec.scope',
        `Unsupported value: "${String(spec.scope)}": supported values: "Cluster", "Namespaced"`,
      );
    if (!Array.isArray(spec.versions) || spec.versions.length === 0)
      bad(
        'spec.versions',
        'Invalid value: null: must have exactly one version marked as storage version',
      );
    else if (spec.versions.filter((v) => v.storage).length !== 1)
      bad(
        'spec.versions',
        'Invalid value: must have exactly one version marked as storage version',
      );
    for (const [i, v] of (spec.versions ?? []).entries()) {
      if (!isObject(v.schema?.openAPIV3Schema))
        bad(`spec.versions[${i}].schema.openAPIV3Schema`, 'Required value: schemas are required');
    }
    if (spec.conversion?.strategy && spec.conversion.strategy !== 'None') {
      throw errors.notImplemented(
        `kube-sim does not call conversion webhooks: spec.conversion.strategy "${spec.conversion.strategy}" is not supported (use "None")`,
      );
    }
  }
  if (causes.length)
    throw errors.invalid(
      'CustomResourceDefinition',
      'apiextensions.k8s.io',
      crd.metadata.name ?? '',
      causes,
    );
  return spec!;
}

/** The resource types a CRD serves: one per served version, all sharing one storage key. */
export function typesFromCrd(crd: KubeObject): ResourceType[] {
  const spec = validateCrd(crd);
  const n = spec.names;
  return spec.versions
    .filter((v) => v.served)
    .map((v) => ({
      group: spec.group,
      version: v.name,
      plural: n.plural,
      singular: n.singular ?? n.kind.toLowerCase(),
      kind: n.kind,
      listKind: n.listKind ?? `${n.kind}List`,
      namespaced: spec.scope === 'Namespaced',
      shortNames: n.shortNames ?? [],
      categories: n.categories ?? [],
      statusSubresource: isObject(v.subresources?.status),
      scale: scaleOf(v.subresources?.scale),
      generation: true,
      fieldSelectors: selectable(v),
      columns: columns(v),
      schema: v.schema?.openAPIV3Schema,
      crdName: crd.metadata.name!,
      storageKey: `${spec.group}/${n.plural}`,
      strategicMerge: false,
    }));
}

/** The status a real API server gives an accepted CRD (Established, NamesAccepted, storedVersions). */
export function crdStatus(crd: KubeObject, now: string): Record<string, unknown> {
  const spec = crd.spec as CrdSpec;
  const cond = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    conditions: [
      cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    acceptedNames: {
      ...spec.names,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    },
    storedVersions: spec.versions.filter((v) => v.storage).map((v) => v.name),
  };
}

function scaleOf(
  sc:
    | { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string }
    | undefined,
): ResourceType['scale'] {
  if (!isObject(sc) || !sc.specReplicasPath || !sc.statusReplicasPath) return undefined;
  return {
    specReplicasPath: sc.specReplicasPath,
    statusReplicasPath: sc.statusReplicasPath,
    ...(sc.labelSelectorPath ? { labelSelectorPath: sc.labelSelectorPath } : {}),
  };
}
