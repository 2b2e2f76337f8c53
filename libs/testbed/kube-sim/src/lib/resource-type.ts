import type { StructuralSchema } from './schema.js';
import type { KubeObject } from './types.js';

/** One Table column: its definition and how a cell is computed from an object. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority: number;
  readonly cell: (obj: KubeObject, now: number) => unknown;
}

/** Reads the value a field selector compares, or undefined when the object has none. */
export type FieldGetter = (obj: KubeObject) => string | undefined;

/** Where a kind keeps what its `scale` subresource reads and writes (JSON paths, as in a CRD). */
export interface ScaleSpec {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

/** A served resource: group/version/plural and everything the server needs to know about it. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Whether the object has a separate /status subresource (status kept apart from the main resource). */
  readonly statusSubresource: boolean;
  /** The scale subresource (autoscaling/v1 Scale), when the kind has one. */
  readonly scale?: ScaleSpec | undefined;
  /** Whether metadata.generation is kept (bumped on changes outside metadata and status). */
  readonly generation: boolean;
  /** Field selectors beyond metadata.name and metadata.namespace. */
  readonly fieldSelectors: Readonly<Record<string, FieldGetter>>;
  /** Table columns after NAME (NAME is always first). */
  readonly columns: readonly PrinterColumn[];
  /** Structural schema of the whole object (CRDs); undefined = not checked (built-in kinds). */
  readonly schema?: StructuralSchema | undefined;
  /** Field layout of a built-in kind (strict decoding: unknown fields, wrong JSON types). */
  readonly decodeSchema?: StructuralSchema | undefined;
  /** The CRD that defines this type, if any. */
  readonly crdName?: string;
  /** The storage key shared by every version of the same group/resource. */
  readonly storageKey: string;
  /** Whether strategic merge patch is accepted (built-in kinds only, as on a real server). */
  readonly strategicMerge: boolean;
  /** Extra validation of built-in kinds (field errors as `path: message`). */
  readonly validate?: (obj: KubeObject) => { field: string; message: string }[];
}

/** "group/version" or "version" for the core group. */
export function groupVersion(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** Verbs advertised in discovery. */
export function verbsOf(_t: ResourceType): string[] {
  return ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
}
