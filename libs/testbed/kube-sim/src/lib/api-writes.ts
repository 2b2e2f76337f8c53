import type { Scope, WriteOutcome } from './api-types.js';
import {
  clientManaged,
  comparable,
  incoming,
  merged,
  newMeta,
  served,
  untimed,
  withoutMetaAndStatus,
} from './api-shape.js';
import { parseApplyBody } from './apply-body.js';
import { crdStatus, typesFromCrd } from './crd.js';
import type { Defaulter } from './defaults.js';
import { serverSideApply, trackUpdate, type ManagedEntry, type Writer } from './managed-fields.js';
import { applyPatch } from './patch-dispatch.js';
import { groupVersion, type ResourceType } from './resource-type.js';
import { errors } from './status.js';
import type { Store } from './store.js';
import { isObject, jsonEqual, type KubeObject } from './types.js';
import { checkObject, checkUpdate, fieldValidationOf } from './validation.js';

// The write verbs (POST, PUT, PATCH, server-side apply) with a real API server's semantics. The
// Api class is their facade; what they need of it is the WriteHost below.

/** What the write verbs need of the API around them. */
export interface WriteHost {
  readonly store: Store;
  readonly defaulter: Defaulter;
  readonly now: () => number;
  ref(s: Scope, name?: string): { group: string; resource: string; name: string };
  writer(s: Scope): Writer;
  /** A Service's cluster IP and node ports (other kinds pass through unchanged). */
  allocated(t: ResourceType, obj: KubeObject, old: KubeObject | undefined): KubeObject;
  admit(
    op: 'CREATE' | 'UPDATE' | 'DELETE',
    s: Scope,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
  ): Promise<string[]>;
  dryRun(s: Scope): boolean;
  requireNamespace(ns: string): void;
  serveCrd(crd: KubeObject): void;
}

/** One step of a read-modify-write: the object to write over `old` and how it may be retried. */
export type Compute = (old: KubeObject) => {
  proposed: KubeObject;
  conditional: boolean;
  managed?: ManagedEntry[];
};

function isCrd(t: ResourceType): boolean {
  return t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io';
}

function nameMismatch(body: string | undefined, url: string | undefined) {
  return errors.badRequest(
    `the name of the object (${String(body)}) does not match the name on the URL (${String(url)})`,
  );
}

/**
 * PATCH with application/apply-patch+yaml: server-side apply by `fieldManager` (required),
 * 409 on conflicts unless `force=true`, create-on-apply when the object does not exist.
 */
export async function applyObject(h: WriteHost, s: Scope, body: unknown): Promise<WriteOutcome> {
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
  const applied = incoming(s, parseApplyBody(body));
  if (applied.metadata.name !== s.name) throw nameMismatch(applied.metadata.name, s.name);
  const w = h.writer(s);
  const existing = h.store.get(s.type.storageKey, s.namespace, s.name!);
  if (!existing) {
    if (s.subresource === 'status') throw errors.notFound(h.ref(s));
    const r = serverSideApply(s.type, undefined, applied, w, force);
    const meta = { ...r.object.metadata, ...applied.metadata };
    return createObject(
      h,
      { ...s, name: undefined },
      { ...r.object, metadata: meta },
      r.managedFields,
    );
  }
  return readModifyWrite(h, s, (old) => {
    const r = serverSideApply(s.type, served(s.type, old), applied, w, force);
    const rv = applied.metadata.resourceVersion;
    if (rv !== undefined && rv !== old.metadata.resourceVersion) throw errors.conflict(h.ref(s));
    // Defaults come back for what the apply removed (a real server defaults on every decode).
    const proposed = h.defaulter.apply(s.type, r.object);
    return { proposed, conditional: rv !== undefined, managed: r.managedFields };
  });
}

/** POST: a new object (generateName, uid, creationTimestamp, generation 1, defaults). */
export async function createObject(
  h: WriteHost,
  s: Scope,
  body: unknown,
  managed?: ManagedEntry[],
): Promise<WriteOutcome> {
  const t = s.type;
  const input = incoming(s, body);
  const meta = newMeta(s, input.metadata, h.now());
  if (t.namespaced) h.requireNamespace(s.namespace!);
  if (h.store.get(t.storageKey, meta.namespace, meta.name!))
    throw errors.alreadyExists(h.ref(s, meta.name));
  let obj: KubeObject = { ...input, apiVersion: groupVersion(t), kind: t.kind, metadata: meta };
  if (t.statusSubresource) delete obj.status; // a real server ignores status on create
  obj = h.allocated(t, h.defaulter.normalize(t, h.defaulter.apply(t, obj)), undefined);
  if (t.crdName === undefined && t.kind === 'CustomResourceDefinition') {
    typesFromCrd(obj);
    obj = { ...obj, status: crdStatus(obj, meta.creationTimestamp!) };
  }
  const checked = checkObject(t, obj, fieldValidationOf(s.query), true);
  checked.object.metadata.managedFields =
    managed ?? trackUpdate(t, undefined, checked.object, h.writer(s));
  const warnings = [
    ...checked.warnings,
    ...(await h.admit('CREATE', s, checked.object, undefined)),
  ];
  // Another create of the same name may have landed while admission was awaited.
  if (h.store.get(t.storageKey, meta.namespace, meta.name!))
    throw errors.alreadyExists(h.ref(s, meta.name));
  if (h.dryRun(s)) return { object: checked.object, code: 201, warnings };
  const stored = h.store.put(t.storageKey, checked.object);
  if (isCrd(t)) h.serveCrd(stored);
  return { object: served(t, stored), code: 201, warnings };
}

/** PUT: replaces an object; 409 on a stale metadata.resourceVersion. */
export async function updateObject(h: WriteHost, s: Scope, body: unknown): Promise<WriteOutcome> {
  const input = incoming(s, body);
  if (input.metadata.name !== s.name) throw nameMismatch(input.metadata.name, s.name);
  const rv = input.metadata.resourceVersion;
  const conditional = rv !== undefined && rv !== '';
  return readModifyWrite(h, s, (old) => {
    if (conditional && rv !== old.metadata.resourceVersion) throw errors.conflict(h.ref(s));
    return { proposed: input, conditional };
  });
}

/** PATCH: JSON patch, merge patch or (built-in kinds) strategic merge patch, then as PUT. */
export async function patchObject(
  h: WriteHost,
  s: Scope,
  body: unknown,
  contentType: string,
): Promise<WriteOutcome> {
  return readModifyWrite(h, s, (old) => {
    const patched = applyPatch(s.type, served(s.type, old), body, contentType);
    if (!isObject(patched) || !isObject(patched.metadata))
      throw errors.badRequest('the patch did not produce an object');
    const obj = patched as KubeObject;
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined && rv !== old.metadata.resourceVersion) throw errors.conflict(h.ref(s));
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

/**
 * Runs a read-modify-write like etcd's GuaranteedUpdate: when the object changed while the
 * write awaited admission, an unconditional write is recomputed on the new state and a
 * conditional one (it named a resourceVersion) is a 409 Conflict.
 */
export async function readModifyWrite(
  h: WriteHost,
  s: Scope,
  compute: Compute,
): Promise<WriteOutcome> {
  for (let attempt = 0; ; attempt++) {
    const old = h.store.get(s.type.storageKey, s.namespace, s.name!);
    if (!old) throw errors.notFound(h.ref(s));
    const { proposed, conditional, managed } = compute(old);
    const out = await replace(h, s, old, proposed, managed);
    if (out !== 'changed') return out;
    if (conditional || attempt >= 10) throw errors.conflict(h.ref(s));
  }
}

/** Writes `proposed` over `old`; 'changed' when `old` is no longer current after admission. */
async function replace(
  h: WriteHost,
  s: Scope,
  old: KubeObject,
  proposed: KubeObject,
  managed?: ManagedEntry[],
): Promise<WriteOutcome | 'changed'> {
  const t = s.type;
  let next = h.defaulter.normalize(s.type, merged(s, old, proposed));
  if (s.subresource === undefined) next = h.allocated(t, next, old);
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
  const mf = managed ?? fromClient ?? trackUpdate(t, old, next, h.writer(s));
  next = { ...next, metadata: { ...next.metadata, managedFields: mf } };
  if (
    jsonEqual(comparable(next), comparable(old)) &&
    ((managed === undefined && fromClient === undefined) ||
      jsonEqual(untimed(mf), untimed(old.metadata.managedFields)))
  )
    return { object: served(t, old), code: 200, warnings };
  warnings.push(...(await h.admit('UPDATE', s, next, old)));
  const current = h.store.get(t.storageKey, s.namespace, s.name!);
  if (current?.metadata.resourceVersion !== old.metadata.resourceVersion) return 'changed';
  if (h.dryRun(s)) return { object: served(t, next), code: 200, warnings };
  return { ...stored(h, s, old, next), warnings };
}

/** Stores the replacement; an object being deleted whose last finalizer went is removed instead. */
function stored(h: WriteHost, s: Scope, old: KubeObject, next: KubeObject) {
  const t = s.type;
  if (
    next.metadata.deletionTimestamp &&
    !next.metadata.finalizers?.length &&
    (old.metadata.finalizers?.length ?? 0) > 0 &&
    (next.metadata.deletionGracePeriodSeconds ?? 0) === 0
  ) {
    // The last finalizer is gone from an object being deleted: it goes now (a pod still in its
    // grace period stays until the kubelet's final delete).
    const removed = h.store.remove(t.storageKey, s.namespace, s.name!)!;
    return { object: served(t, removed), code: 200 };
  }
  const put = h.store.put(t.storageKey, next);
  if (isCrd(t)) h.serveCrd(put);
  return { object: served(t, put), code: 200 };
}
