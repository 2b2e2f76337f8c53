import { randomUUID } from 'node:crypto';
import type { Scope } from './api-types.js';
import { crdStatus, typesFromCrd } from './crd.js';
import type { ManagedEntry } from './managed-fields.js';
import { groupVersion, type ResourceType } from './resource-type.js';
import { errors } from './status.js';
import { isObject, jsonEqual, type KubeObject, type ObjectMeta } from './types.js';

// How the API shapes objects: what comes in (checked against the URL), the metadata a create
// assigns, what a write would store over the old object, and what is served back.

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
export function comparable(o: KubeObject): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = o.metadata;
  return { ...o, metadata: meta };
}

/**
 * managedFields a client rewrote itself (kubectl does, moving client-side-apply ownership to its
 * server-side-apply manager): taken as sent, as a real server does; `[{}]` clears them.
 */
export function clientManaged(proposed: KubeObject, old: KubeObject): ManagedEntry[] | undefined {
  const mf = proposed.metadata.managedFields;
  if (!Array.isArray(mf) || mf.length === 0 || jsonEqual(mf, old.metadata.managedFields))
    return undefined;
  return (mf as unknown[]).filter(
    (e): e is ManagedEntry => isObject(e) && typeof e.manager === 'string',
  );
}

/** managedFields without their times (an apply that changes only ownership still writes). */
export function untimed(mf: unknown): unknown {
  return Array.isArray(mf)
    ? (mf as unknown[]).map((e) =>
        isObject(e) ? { ...e, time: undefined, apiVersion: undefined } : e,
      )
    : [];
}

/** The spec-like part of an object: what a generation bump compares. */
export function withoutMetaAndStatus(o: KubeObject, dropStatus: boolean): unknown {
  const { metadata: _m, apiVersion: _a, ...rest } = o;
  if (dropStatus) delete rest.status;
  return rest;
}

/** The object a write would store: server-owned metadata kept, status kept apart. */
export function merged(s: Scope, old: KubeObject, proposed: KubeObject): KubeObject {
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
export function incoming(s: Scope, body: unknown): KubeObject {
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

/** A new object's metadata: its name (generateName filled in), uid, creation time, generation. */
export function newMeta(s: Scope, m: ObjectMeta, now: number): ObjectMeta {
  const t = s.type;
  let name = m.name;
  if (!name && m.generateName) {
    name =
      m.generateName +
      Array.from({ length: 5 }, () => nameChars[Math.floor(Math.random() * nameChars.length)]).join(
        '',
      );
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
    creationTimestamp: timestamp(now),
  };
  if (t.generation) meta.generation = 1;
  return meta;
}
