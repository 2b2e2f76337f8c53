import type { ResourceType } from './resource-type.js';
import type { KubeObject } from './types.js';

/** What one request addresses: a resource type, a namespace, optionally a name and subresource. */
export interface Scope {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: 'status' | 'scale' | undefined;
  readonly query: URLSearchParams;
  /** The client's User-Agent (the default field manager is its first word). */
  readonly userAgent?: string;
}

/** A write's result: the object to return, its HTTP code and any Warning headers. */
export interface WriteOutcome {
  readonly object: KubeObject;
  readonly code: number;
  readonly warnings: string[];
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What admission sees of a request. */
export interface AdmissionRequest {
  readonly operation: Operation;
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly subresource: string | undefined;
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  readonly dryRun: boolean;
}

/** Called before a write is stored; throws an ApiError to refuse it, returns warnings otherwise. */
export type AdmissionHook = (req: AdmissionRequest) => Promise<string[]>;

/** What the scale subresource needs of the API (the API implements it; no import back). */
export interface ScaleTarget {
  ref(s: Scope): { group: string; resource: string; name: string };
  get(s: Scope): KubeObject;
  modify(
    s: Scope,
    compute: (old: KubeObject) => { proposed: KubeObject; conditional: boolean },
  ): Promise<WriteOutcome>;
}

/** Resource types by group, version and plural (the registry implements it). */
export interface TypeLookup {
  find(group: string, version: string, plural: string): ResourceType | undefined;
}
