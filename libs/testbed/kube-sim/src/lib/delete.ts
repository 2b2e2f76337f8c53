import type { Scope, WriteOutcome } from './api-types.js';
import type { Api, ApiDeps } from './api.js';
import { served, timestamp } from './api-shape.js';
import { selectorOf } from './list.js';
import { errors } from './status.js';
import { isObject, type KubeObject } from './types.js';
import type { ResourceType } from './resource-type.js';

interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
}

function optionsOf(s: Scope, body: unknown): DeleteOptions {
  const o: DeleteOptions = isObject(body) ? body : {};
  const grace = s.query.get('gracePeriodSeconds');
  const policy = s.query.get('propagationPolicy');
  return {
    ...o,
    ...(grace !== null ? { gracePeriodSeconds: Number(grace) } : {}),
    ...(policy ? { propagationPolicy: policy } : {}),
  };
}

function successStatus(s: Scope, o: KubeObject): unknown {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: o.metadata.name,
      group: s.type.group,
      kind: s.type.plural,
      uid: o.metadata.uid,
    },
  };
}

/**
 * DELETE with finalizers (deletionTimestamp until they are gone), graceful deletion of pods bound
 * to a node (the node deletes them), namespace and CRD cascades, and owner-reference garbage
 * collection in the background.
 */
export class Deleter {
  constructor(
    private readonly api: Api,
    private readonly d: ApiDeps,
  ) {}

  async delete(s: Scope, body: unknown): Promise<WriteOutcome & { body: unknown }> {
    const t = s.type;
    const before = this.d.store.get(t.storageKey, s.namespace, s.name!);
    if (!before) throw errors.notFound(this.api.ref(s));
    const opts = optionsOf(s, body);
    this.checkPreconditions(s, before, opts);
    const warnings = await this.api.admit('DELETE', s, undefined, before);
    // The object may have changed or gone while admission was awaited: act on what is there now.
    const old = this.d.store.get(t.storageKey, s.namespace, s.name!);
    if (!old) throw errors.notFound(this.api.ref(s));
    this.checkPreconditions(s, old, opts);
    if (this.api.dryRun(s)) return { object: old, code: 200, warnings, body: served(t, old) };
    const pending = this.pending(t, old, opts);
    if (pending) {
      const stored = old.metadata.deletionTimestamp ? old : this.d.store.put(t.storageKey, pending);
      if (t.kind === 'Namespace' && t.group === '')
        setImmediate(() => this.finishNamespace(old.metadata.name!));
      return { object: stored, code: 200, warnings, body: served(t, stored) };
    }
    const removed = this.remove(s, old, opts);
    const returnsObject = t.crdName !== undefined || t.kind === 'Pod';
    return {
      object: removed,
      code: 200,
      warnings,
      body: returnsObject ? served(t, removed) : successStatus(s, removed),
    };
  }

  /** DELETE on a collection: every object the selectors match, one by one. */
  async deleteCollection(s: Scope, body: unknown): Promise<unknown> {
    const match = selectorOf(s);
    const items: KubeObject[] = [];
    for (const o of this.d.store.list(s.type.storageKey, s.namespace).filter(match)) {
      const r = await this.delete(
        { ...s, name: o.metadata.name, namespace: o.metadata.namespace },
        body,
      );
      items.push(served(s.type, r.object));
    }
    return {
      apiVersion: s.type.group ? `${s.type.group}/${s.type.version}` : 'v1',
      kind: s.type.listKind,
      metadata: {},
      items,
    };
  }

  private checkPreconditions(s: Scope, old: KubeObject, opts: DeleteOptions): void {
    const p = opts.preconditions;
    if (p?.uid && p.uid !== old.metadata.uid) {
      throw errors.conflict(
        this.api.ref(s),
        `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    if (p?.resourceVersion && p.resourceVersion !== old.metadata.resourceVersion) {
      throw errors.conflict(
        this.api.ref(s),
        `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
      );
    }
  }

  /** The object marked for deletion when it cannot go at once, else undefined. */
  private pending(t: ResourceType, old: KubeObject, opts: DeleteOptions): KubeObject | undefined {
    const now = this.d.now();
    if (t.kind === 'Namespace' && t.group === '') {
      return {
        ...old,
        metadata: {
          ...old.metadata,
          deletionTimestamp: old.metadata.deletionTimestamp ?? timestamp(now),
        },
        status: { phase: 'Terminating' },
      };
    }
    if (old.metadata.finalizers?.length) {
      return {
        ...old,
        metadata: {
          ...old.metadata,
          deletionTimestamp: old.metadata.deletionTimestamp ?? timestamp(now),
          deletionGracePeriodSeconds: 0,
        },
      };
    }
    const spec = old.spec as
      { nodeName?: string; terminationGracePeriodSeconds?: number } | undefined;
    const grace = opts.gracePeriodSeconds ?? spec?.terminationGracePeriodSeconds ?? 30;
    if (t.kind === 'Pod' && t.group === '' && spec?.nodeName && grace > 0) {
      return {
        ...old,
        metadata: {
          ...old.metadata,
          deletionTimestamp: old.metadata.deletionTimestamp ?? timestamp(now + grace * 1000),
          deletionGracePeriodSeconds: grace,
        },
      };
    }
    return undefined;
  }

  private remove(s: Scope, old: KubeObject, opts: DeleteOptions): KubeObject {
    const t = s.type;
    const removed = this.d.store.remove(t.storageKey, old.metadata.namespace, old.metadata.name!)!;
    if (t.kind === 'CustomResourceDefinition' && t.group === 'apiextensions.k8s.io') {
      const types = this.d.registry.all().filter((x) => x.crdName === old.metadata.name);
      this.d.registry.removeCrd(old.metadata.name!);
      for (const key of new Set(types.map((x) => x.storageKey))) this.d.store.dropResource(key);
    }
    if (opts.propagationPolicy !== 'Orphan')
      setImmediate(() => this.collectDependents(removed.metadata.uid!));
    return removed;
  }

  /**
   * The garbage collector: objects owned by a deleted uid go too. It deletes them as a DELETE
   * does, so a pod bound to a node is deleted gracefully (deletionTimestamp; the node stops its
   * containers, preStop first, and removes it), not snatched from under its kubelet.
   */
  private collectDependents(uid: string): void {
    for (const key of this.d.store.keys()) {
      for (const o of this.d.store.list(key)) {
        if (!o.metadata.ownerReferences?.some((r) => r.uid === uid)) continue;
        const type = this.d.registry.all().find((x) => x.storageKey === key);
        if (type?.kind === 'Pod' && type.group === '') {
          const graceful = this.pending(type, o, {});
          if (graceful) {
            if (!o.metadata.deletionTimestamp) this.d.store.put(key, graceful);
            continue;
          }
        }
        const removed = this.d.store.remove(key, o.metadata.namespace, o.metadata.name!);
        if (removed) setImmediate(() => this.collectDependents(removed.metadata.uid!));
      }
    }
  }

  /** The namespace controller: deletes everything in a terminating namespace, then the namespace. */
  private finishNamespace(ns: string): void {
    for (const t of this.d.registry.all()) {
      if (!t.namespaced) continue;
      for (const o of this.d.store.list(t.storageKey, ns))
        this.d.store.remove(t.storageKey, ns, o.metadata.name!);
    }
    this.d.store.remove('/namespaces', undefined, ns);
  }
}
