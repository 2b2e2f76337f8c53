import type { AdmissionHook, Scope, WriteOutcome } from './api-types.js';
import { served, timestamp } from './api-shape.js';
import {
  applyObject,
  createObject,
  patchObject,
  readModifyWrite,
  updateObject,
  type Compute,
  type WriteHost,
} from './api-writes.js';
import { typesFromCrd } from './crd.js';
import { Defaulter } from './defaults.js';
import { ServiceAllocator, ServiceUsage } from './service-alloc.js';
import type { ManagedEntry, Writer } from './managed-fields.js';
import type { Registry } from './registry.js';
import { groupVersion, type ResourceType } from './resource-type.js';
import { ApiError, errors } from './status.js';
import { objectKey, type Store } from './store.js';
import type { KubeObject } from './types.js';

/** What the API needs from its surroundings. */
export interface ApiDeps {
  readonly store: Store;
  readonly registry: Registry;
  readonly admission: AdmissionHook;
  readonly now: () => number;
  /** Allocates Services' cluster IPs and node ports (default: 10.96.0.0/12, 30000–32767). */
  readonly services?: ServiceAllocator;
}

/** Create, read, update, patch and delete with a real API server's semantics, over the store. */
export class Api implements WriteHost {
  readonly defaulter = new Defaulter();
  private readonly services: ServiceAllocator;
  /** What stored Services hold, by storage key, built on first use and then kept from events. */
  private readonly usage = new Map<string, { epoch: number; usage: ServiceUsage }>();

  constructor(private readonly d: ApiDeps) {
    this.services = d.services ?? new ServiceAllocator();
    d.store.subscribe((e) => {
      const u = this.usage.get(e.storageKey)?.usage;
      const key = objectKey(e.object.metadata.namespace, e.object.metadata.name!);
      if (e.type === 'DELETED') u?.delete(key);
      else u?.set(key, e.object);
    });
  }

  get store(): Store {
    return this.d.store;
  }

  get now(): () => number {
    return this.d.now;
  }

  /** What the stored Services of a storage key hold (rebuilt after a store clear). */
  private serviceUsage(storageKey: string): ServiceUsage {
    const current = this.usage.get(storageKey);
    if (current && current.epoch === this.d.store.epoch) return current.usage;
    const usage = new ServiceUsage();
    for (const o of this.d.store.values(storageKey))
      usage.set(objectKey(o.metadata.namespace, o.metadata.name!), o);
    this.usage.set(storageKey, { epoch: this.d.store.epoch, usage });
    return usage;
  }

  /** A Service's cluster IP and node ports, allocated as kube-apiserver does (422 on a bad request). */
  allocated(t: ResourceType, obj: KubeObject, old: KubeObject | undefined): KubeObject {
    if (t.group !== '' || t.kind !== 'Service') return obj;
    const others = this.serviceUsage(t.storageKey).others(obj.metadata);
    const r = this.services.allocate(obj, old, others);
    if (r.causes.length) throw errors.invalid(t.kind, t.group, obj.metadata.name ?? '', r.causes);
    return r.object;
  }

  ref(s: Scope, name = s.name ?? '') {
    return { group: s.type.group, resource: s.type.plural, name };
  }

  /** GET of one object; 404 when absent. */
  get(s: Scope): KubeObject {
    const o = this.d.store.get(s.type.storageKey, s.namespace, s.name!);
    if (!o) throw errors.notFound(this.ref(s));
    return served(s.type, o);
  }

  /** Who writes: the fieldManager (default: the first word of the User-Agent), as a real server names it. */
  writer(s: Scope): Writer {
    const ua = (s.userAgent ?? '').split('/')[0]!.trim();
    return {
      manager: s.query.get('fieldManager') || ua || 'unknown',
      subresource: s.subresource,
      apiVersion: groupVersion(s.type),
      time: timestamp(this.d.now()),
    };
  }

  /**
   * PATCH with application/apply-patch+yaml: server-side apply by `fieldManager` (required),
   * 409 on conflicts unless `force=true`, create-on-apply when the object does not exist.
   */
  apply(s: Scope, body: unknown): Promise<WriteOutcome> {
    return applyObject(this, s, body);
  }

  /** POST: a new object (generateName, uid, creationTimestamp, generation 1, defaults). */
  create(s: Scope, body: unknown, managed?: ManagedEntry[]): Promise<WriteOutcome> {
    return createObject(this, s, body, managed);
  }

  /** PUT: replaces an object; 409 on a stale metadata.resourceVersion. */
  update(s: Scope, body: unknown): Promise<WriteOutcome> {
    return updateObject(this, s, body);
  }

  /** PATCH: JSON patch, merge patch or (built-in kinds) strategic merge patch, then as PUT. */
  patch(s: Scope, body: unknown, contentType: string): Promise<WriteOutcome> {
    return patchObject(this, s, body, contentType);
  }

  /** A read-modify-write of one object (the scale subresource uses it). */
  modify(s: Scope, compute: Compute): Promise<WriteOutcome> {
    return readModifyWrite(this, s, compute);
  }

  requireNamespace(ns: string): void {
    const nsType = this.d.registry.find('', 'v1', 'namespaces')!;
    const found = this.d.store.get(nsType.storageKey, undefined, ns);
    if (!found) throw errors.notFound({ group: '', resource: 'namespaces', name: ns });
    if (found.metadata.deletionTimestamp) {
      throw new ApiError(
        403,
        'Forbidden',
        `unable to create new content in namespace ${ns} because it is being terminated`,
      );
    }
  }

  dryRun(s: Scope): boolean {
    return s.query.getAll('dryRun').includes('All');
  }

  async admit(
    op: 'CREATE' | 'UPDATE' | 'DELETE',
    s: Scope,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
  ): Promise<string[]> {
    return this.d.admission({
      operation: op,
      type: s.type,
      namespace: s.namespace,
      name: object?.metadata.name ?? oldObject?.metadata.name ?? '',
      subresource: s.subresource,
      object: object && served(s.type, object),
      oldObject: oldObject && served(s.type, oldObject),
      dryRun: this.dryRun(s),
    });
  }

  /** Serves (or re-serves) the group/versions of a stored CRD. */
  serveCrd(crd: KubeObject): void {
    this.d.registry.removeCrd(crd.metadata.name!);
    for (const t of typesFromCrd(crd)) this.d.registry.add(t);
  }
}
