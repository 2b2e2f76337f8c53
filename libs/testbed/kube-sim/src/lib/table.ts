import type { ResourceType } from './resource-type.js';
import type { KubeObject } from './types.js';

/** True when the Accept header asks for a Table (kubectl get). */
export function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept.split(',')[0] ?? '');
}

function columnDefinitions(t: ResourceType): unknown[] {
  return [
    {
      name: 'Name',
      type: 'string',
      format: 'name',
      description:
        'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
      priority: 0,
    },
    ...t.columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority,
    })),
  ];
}

function rowObject(o: KubeObject, include: string): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

/** A meta.k8s.io/v1 Table of objects with the type's printer columns. */
export function toTable(
  t: ResourceType,
  objects: readonly KubeObject[],
  meta: Record<string, unknown>,
  opts: { includeObject: string; headers: boolean; now: number },
): unknown {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    columnDefinitions: opts.headers ? columnDefinitions(t) : [],
    rows: objects.map((o) => ({
      cells: [o.metadata.name, ...t.columns.map((c) => c.cell(o, opts.now) ?? null)],
      object: rowObject(o, opts.includeObject),
    })),
  };
}
