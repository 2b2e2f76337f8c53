import { randomUUID } from 'node:crypto';
import type { AdmissionHook, Scope, WriteOutcome } from './api-types.js';
import { crdStatus, typesFromCrd } from './crd.js';
import { Defaulter } from './defaults.js';
import { ServiceAllocator, ServiceUsage } from './service-alloc.js';
import { parseApplyBody } from './apply-body.js';
import { serverSideApply, trackUpdate, type ManagedEntry, type Writer } from './managed-fields.js';
import { applyPatch } from './patch-dispatch.js';
import type { Registry } from './registry.js';
import { groupVersion, type ResourceType } from './resource-type.js';
import { ApiError, errors } from './status.js';
import { objectKey, type Store } from './store.js';
import { isObject, jsonEqual, type KubeObject, type ObjectMeta } from './types.js';
import { checkObject, checkUpdate, fieldValidationOf } from './validation.js';

/** What the API needs from its surroundings. */
export interface ApiDeps {
  readonly store: Store;
  readonly registry: Registry;
  readonly admission: AdmissionHook;
  readonly now: () => number;
  /** Allocates Services' cluster IPs and node ports (default: 10.96.0.0/12, 30000–32767). */
  readonly services?: ServiceAllocator;
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const nameChars = 'bcdfghjklmnpqrstvwxz2456789';

/** The object as served in the requested version (CRD versions share storage, conversion None). */
export function served(t: ResourceType, o: KubeObject): KubeObject {
  const apiVersion = groupVersion(t);
  return o.apiVersion === apiVersion ? o : { ...o, apiVersion };
}

/** Drops what a client may not set and what never takes part in "did anything change?". */
function comparable(o: KubeObject): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = o.metadata;
  return { ...o, metadata: meta };
}

/**
 * managedFields a client rewrote itself (kubectl does, moving client-side-apply ownership to its
 * server-side-apply manager): taken as sent, as a real server does; `[{}]` clears them.
 */
function clientManaged(proposed: KubeObject, old: KubeObject): ManagedEntry[] | undefined {
  const mf = proposed.metadata.managedFields;
  if (!Array.isArray(mf) || mf.length === 0 || jsonEqual(mf, old.metadata.managedFields))
    return undefined;
  return (mf as unknown[]).filter(
    (e): e is ManagedEntry => isObject(e) && typeof e.manager === 'string',
  );
}

/** managedFields without their times (an apply that changes only ownership still writes). */
function untimed(mf: unknown): unknown {
  return Array.isArray(mf)
    ? (mf as unknown[]).map((e) =>
        isObject(e) ? { ...e, time: undefined, apiVersion: undefined } : e,
      )
    : [];
}

function withoutMetaAndStatus(o: KubeObject, dropStatus: boolean): unknown {
  const { metadata: _m, apiVersion: _a, ...rest } = o;
  if (dropStatus) delete rest.status;
  return rest;
}

/** Create, read, update, patch and delete with a real API server's semantics, over the store. */
export class Api {
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
  private allocated(t: ResourceType, obj: KubeObject, old: KubeObject | undefined): KubeObject {
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
  async apply(s: Scope, body: unknown): Promise<WriteOutcome> {
    const manager = s.query.get('fieldManager');
    if (!manager)
      throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [
        {
          reason: 'FieldValueRequired',
          field: 'fieldManager',
          message: 'fieldManager: Required value: is required for apply patch',
        },
      ]);
    const force = s.query.get('force') === 'true';
    const applied = this.incoming(s, parseApplyBody(body));
    if (applied.metadata.name !== s.name)
      throw errors.badRequest(
        `the name of the object (${String(applied.metadata.name)}) does not match the name on the URL (${String(s.name)})`,
      );
    const w = this.writer(s);
    const existing = this.d.store.get(s.type.storageKey, s.namespace, s.name!);
    if (!existing) {
      if (s.subresource === 'status') throw errors.notFound(this.ref(s));
      const r = serverSideApply(s.type, undefined, applied, w, force);
      const meta = { ...r.object.metadata, ...applied.metadata };
      return this.create(
        { ...s, name: undefined },
        { ...r.object, metadata: meta },
        r.managedFields,
      );
    }
    return this.retrying(s, (old) => {
      const r = serverSideApply(s.type, served(s.type, old), applied, w, force);
      const rv = applied.metadata.resourceVersion;
      if (rv !== undefined && rv !== old.metadata.resourceVersion)
        throw errors.conflict(this.ref(s));
      // Defaults come back for what the apply removed (a real server defaults on every decode).
      const proposed = this.defaulter.apply(s.type, r.object);
      return { proposed, conditional: rv !== undefined, managed: r.managedFields };
    });
  }

  /** POST: a new object (generateName, uid, creationTimestamp, generation 1, defaults). */
  async create(s: Scope, body: unknown, managed?: ManagedEntry[]): Promise<WriteOutcome> {
    const t = s.type;
    const input = this.incoming(s, body);
    const meta = this.newMeta(s, input.metadata);
    if (t.namespaced) this.requireNamespace(s.namespace!);
    if (this.d.store.get(t.storageKey, meta.namespace, meta.name!))
      throw errors.alreadyExists(this.ref(s, meta.name));
    let obj: KubeObject = { ...input, apiVersion: groupVersion(t), kind: t.kind, metadata: meta };
    if (t.statusSubresource) delete obj.status; // a real server ignores status on create
    obj = this.allocated(t, this.defaulter.normalize(t, this.defaulter.apply(t, obj)), undefined);
    if (t.crdName === undefined && t.kind === 'CustomResourceDefinition') {
      typesFromCrd(obj);
      obj = { ...obj, status: crdStatus(obj, meta.creationTimestamp!) };
    }
    const checked = checkObject(t, obj, fieldValidationOf(s.query), true);
    checked.object.metadata.managedFields =
      managed ?? trackUpdate(t, undefined, checked.object, this.writer(s));
    const warnings = [
      ...checked.warnings,
      ...(await this.admit('CREATE', s, checked.object, undefined)),
    ];
    // Another create of the same name may have landed while admission was awaited.
    if (this.d.store.get(t.storageKey, meta.namespace, meta.name!))
      throw errors.alreadyExists(this.ref(s, meta.name));
    if (this.dryRun(s)) return { object: checked.object, code: 201, warnings };
    const stored = this.d.store.put(t.storageKey, checked.object);
    if (t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io')
      this.serveCrd(stored);
    return { object: served(t, stored), code: 201, warnings };
  }

  /** PUT: replaces an object; 409 on a stale metadata.resourceVersion. */
  async update(s: Scope, body: unknown): Promise<WriteOutcome> {
    const input = this.incoming(s, body);
    if (input.metadata.name !== s.name) {
      throw errors.badRequest(
        `the name of the object (${String(input.metadata.name)}) does not match the name on the URL (${String(s.name)})`,
      );
    }
    const rv = input.metadata.resourceVersion;
    const conditional = rv !== undefined && rv !== '';
    return this.retrying(s, (old) => {
      if (conditional && rv !== old.metadata.resourceVersion) throw errors.conflict(this.ref(s));
      return { proposed: input, conditional };
    });
  }

  /** A read-modify-write of one object (the scale subresource uses it). */
  modify(
    s: Scope,
    compute: (old: KubeObject) => { proposed: KubeObject; conditional: boolean },
  ): Promise<WriteOutcome> {
    return this.retrying(s, compute);
  }

  /**
   * Runs a read-modify-write like etcd's GuaranteedUpdate: when the object changed while the
   * write awaited admission, an unconditional write is recomputed on the new state and a
   * conditional one (it named a resourceVersion) is a 409 Conflict.
   */
  private async retrying(
    s: Scope,
    compute: (old: KubeObject) => {
      proposed: KubeObject;
      conditional: boolean;
      managed?: ManagedEntry[];
    },
  ): Promise<WriteOutcome> {
    for (let attempt = 0; ; attempt++) {
      const old = this.d.store.get(s.type.storageKey, s.namespace, s.name!);
      if (!old) throw errors.notFound(this.ref(s));
      const { proposed, conditional, managed } = compute(old);
      const out = await this.replace(s, old, proposed, managed);
      if (out !== 'changed') return out;
      if (conditional || attempt >= 10) throw errors.conflict(this.ref(s));
    }
  }

  /** PATCH: JSON patch, merge patch or (built-in kinds) strategic merge patch, then as PUT. */
  async patch(s: Scope, body: unknown, contentType: string): Promise<WriteOutcome> {
    return this.retrying(s, (old) => {
      const patched = applyPatch(s.type, served(s.type, old), body, contentType);
      if (!isObject(patched) || !isObject(patched.metadata))
        throw errors.badRequest('the patch did not produce an object');
      const obj = patched as KubeObject;
      const rv = obj.metadata.resourceVersion;
      if (rv !== undefined && rv !== old.metadata.resourceVersion)
        throw errors.conflict(this.ref(s));
      if (obj.metadata.name !== old.metadata.name)
        throw errors.badRequest(
          'metadata.name: Invalid value: the name of an object cannot be changed',
        );
      // A patch that names the current resourceVersion is conditional, like a PUT that does.
      return {
        proposed: obj,
        conditional:
          rv !== undefined &&
          isObject(body) &&
          isObject(body.metadata) &&
          'resourceVersion' in body.metadata,
      };
    });
  }

  /** Writes `proposed` over `old`; 'changed' when `old` is no longer current after admission. */
  private async replace(
    s: Scope,
    old: KubeObject,
    proposed: KubeObject,
    managed?: ManagedEntry[],
  ): Promise<WriteOutcome | 'changed'> {
    const t = s.type;
    let next = this.defaulter.normalize(s.type, this.merged(s, old, proposed));
    if (s.subresource === undefined) next = this.allocated(t, next, old);
    const checked = checkObject(t, next, fieldValidationOf(s.query), false);
    next = checked.object;
    checkUpdate(t, next, old);
    const warnings = [...checked.warnings];
    if (
      t.generation &&
      !jsonEqual(
        withoutMetaAndStatus(next, t.statusSubresource),
        withoutMetaAndStatus(old, t.statusSubresource),
      )
    ) {
      next = {
        ...next,
        metadata: { ...next.metadata, generation: (old.metadata.generation ?? 0) + 1 },
      };
    }
    const fromClient = managed === undefined ? clientManaged(proposed, old) : undefined;
    const mf = managed ?? fromClient ?? trackUpdate(t, old, next, this.writer(s));
    next = { ...next, metadata: { ...next.metadata, managedFields: mf } };
    if (
      jsonEqual(comparable(next), comparable(old)) &&
      ((managed === undefined && fromClient === undefined) ||
        jsonEqual(untimed(mf), untimed(old.metadata.managedFields)))
    )
      return { object: served(t, old), code: 200, warnings };
    warnings.push(...(await this.admit('UPDATE', s, next, old)));
    const current = this.d.store.get(t.storageKey, s.namespace, s.name!);
    if (current?.metadata.resourceVersion !== old.metadata.resourceVersion) return 'changed';
    if (this.dryRun(s)) return { object: served(t, next), code: 200, warnings };
    if (
      next.metadata.deletionTimestamp &&
      !next.metadata.finalizers?.length &&
      (old.metadata.finalizers?.length ?? 0) > 0 &&
      (next.metadata.deletionGracePeriodSeconds ?? 0) === 0
    ) {
      // The last finalizer is gone from an object being deleted: it goes now (a pod still in its
      // grace period stays until the kubelet's final delete).
      const removed = this.d.store.remove(t.storageKey, s.namespace, s.name!)!;
      return { object: served(t, removed), code: 200, warnings };
    }
    const stored = this.d.store.put(t.storageKey, next);
    if (t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io')
      this.serveCrd(stored);
    return { object: served(t, stored), code: 200, warnings };
  }

  /** The object a write would store: server-owned metadata kept, status kept apart. */
  private merged(s: Scope, old: KubeObject, proposed: KubeObject): KubeObject {
    const t = s.type;
    if (s.subresource === 'status') {
      const next: KubeObject = { ...old, apiVersion: groupVersion(t) };
      if (proposed.status === undefined) delete next.status;
      else next.status = proposed.status;
      return next;
    }
    const m = old.metadata;
    const keep: ObjectMeta = {
      name: m.name!,
      uid: m.uid!,
      creationTimestamp: m.creationTimestamp!,
      resourceVersion: m.resourceVersion!,
    };
    if (m.namespace !== undefined) keep.namespace = m.namespace;
    for (const k of ['generation', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
      if (m[k] !== undefined) (keep as Record<string, unknown>)[k] = m[k];
    }
    const { generateName: _g, ...pm } = proposed.metadata;
    const next: KubeObject = {
      ...proposed,
      apiVersion: groupVersion(t),
      kind: t.kind,
      metadata: { ...pm, ...keep },
    };
    if (t.statusSubresource) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    if (t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io') {
      typesFromCrd(next);
      next.status = crdStatus(next, m.creationTimestamp!);
    }
    return next;
  }

  /** The body of a POST or PUT, checked against the URL (kind, apiVersion, namespace). */
  incoming(s: Scope, body: unknown): KubeObject {
    const t = s.type;
    if (!isObject(body)) throw errors.badRequest("Object 'Kind' is missing in the request body");
    const metadata = isObject(body.metadata) ? (body.metadata as ObjectMeta) : {};
    if (body.kind !== undefined && body.kind !== t.kind) {
      throw errors.badRequest(
        `the kind in the data (${JSON.stringify(body.kind)}) does not match the expected kind (${t.kind})`,
      );
    }
    if (body.apiVersion !== undefined && body.apiVersion !== groupVersion(t)) {
      throw errors.badRequest(
        `the API version in the data (${JSON.stringify(body.apiVersion)}) does not match the expected API version (${groupVersion(t)})`,
      );
    }
    if (
      t.namespaced &&
      metadata.namespace !== undefined &&
      metadata.namespace !== '' &&
      metadata.namespace !== s.namespace
    ) {
      throw errors.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const ns = t.namespaced ? { namespace: s.namespace! } : {};
    const { namespace: _ns, ...rest } = metadata;
    return { ...body, apiVersion: groupVersion(t), kind: t.kind, metadata: { ...rest, ...ns } };
  }

  private newMeta(s: Scope, m: ObjectMeta): ObjectMeta {
    const t = s.type;
    let name = m.name;
    if (!name && m.generateName) {
      name =
        m.generateName +
        Array.from(
          { length: 5 },
          () => nameChars[Math.floor(Math.random() * nameChars.length)],
        ).join('');
    }
    if (!name) {
      throw errors.invalid(t.kind, t.group, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'metadata.name: Required value: name or generateName is required',
        },
      ]);
    }
    const {
      resourceVersion: _rv,
      uid: _u,
      creationTimestamp: _c,
      deletionTimestamp: _d,
      deletionGracePeriodSeconds: _dg,
      generation: _g,
      selfLink: _s,
      ...rest
    } = m;
    const meta: ObjectMeta = {
      ...rest,
      name,
      uid: randomUUID(),
      creationTimestamp: timestamp(this.d.now()),
    };
    if (t.generation) meta.generation = 1;
    return meta;
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
