import {
  matchesLabelSelector,
  parseLabelSelector,
  withoutFieldPath,
  type FieldPath,
  type SelectorRequirement,
} from '#core';
import type { KubeApi, ListQuery, ResourceType } from './kube-api.js';
import { matchesFieldTerms, parseFieldSelector, splitFieldSelector } from './field-selector.js';
import type { NamespaceTracker } from './namespace-tracker.js';
import type { KubeObject, ResourceSink } from './ports.js';
import { Reflector, type ReflectorState, type ReflectorTiming } from './reflector.js';

/** The selectors and type of one watched resource (a subset of WatchedResourceSpec). */
export interface WatchedResourceDef {
  readonly apiVersion: string;
  readonly resources: string;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly namespaceSelector?: string | undefined;
}

export interface ResourceWatchDeps {
  readonly api: KubeApi;
  readonly sink: ResourceSink;
  readonly timing: ReflectorTiming;
  readonly ignore: readonly FieldPath[];
  readonly namespaces: () => NamespaceTracker;
  readonly onState: () => void;
}

/** Per-namespace streams are started and stopped one operation at a time per namespace. */
interface Slot {
  reflector: Reflector | undefined;
  chain: Promise<void>;
}

/**
 * The watch of one `spec.watchedResources` entry: one cluster-wide list+watch, or, with a
 * namespaceSelector, one per matching namespace (objects leave when their namespace stops
 * matching and come back with a fresh list when it matches again).
 */
export class ResourceWatch {
  readonly type: ResourceType;
  private readonly query: ListQuery;
  private readonly accept: (o: KubeObject) => boolean;
  private readonly nsSelector: readonly SelectorRequirement[] | undefined;
  private readonly slots = new Map<string, Slot>();
  private readonly states = new Map<string, ReflectorState>();
  private desired = new Set<string>();
  private initial: Set<string> | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private listedOnce = false;

  constructor(
    readonly name: string,
    readonly def: WatchedResourceDef,
    private readonly deps: ResourceWatchDeps,
  ) {
    this.type = { apiVersion: def.apiVersion, plural: def.resources };
    const labels = selectorOf(def.labelSelector);
    const fields = splitFieldSelector(this.type, parseFieldSelector(def.fieldSelector ?? '') ?? []);
    this.query = {
      ...(def.labelSelector ? { labelSelector: def.labelSelector } : {}),
      ...(fields.server ? { fieldSelector: fields.server } : {}),
    };
    // The label selector is also checked here: cheap, and it guards against a server that ignores it.
    this.accept = (o) =>
      matchesLabelSelector(labels, o.metadata.labels) && matchesFieldTerms(fields.client, o);
    this.nsSelector = def.namespaceSelector ? selectorOf(def.namespaceSelector) : undefined;
  }

  start(): void {
    if (!this.nsSelector) {
      this.startSlot(undefined);
      return;
    }
    // A restart with a namespaceSelector must not keep objects of namespaces that no longer match.
    this.deps.sink.reset(this.name, undefined, []);
    this.unsubscribe = this.deps
      .namespaces()
      .subscribe(this.nsSelector, (m) => this.onNamespaces(m));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    await Promise.all(
      [...this.slots.values()].map((s) => (s.chain = s.chain.then(() => s.reflector?.stop()))),
    );
  }

  /** Strips ignored fields from an object (also used for on-demand fetches). */
  strip(object: KubeObject): KubeObject {
    return this.deps.ignore.reduce((o, p) => withoutFieldPath(o, p), object);
  }

  /** The worst state of this resource's streams. */
  state(): ReflectorState & { readonly streams: number } {
    const all = [...this.states.values()];
    const rank = [
      'unauthorized',
      'forbidden',
      'not-found',
      'invalid',
      'backoff',
      'listing',
      'watching',
      'stopped',
    ];
    const worst = all.sort((a, b) => rank.indexOf(a.phase) - rank.indexOf(b.phase))[0];
    return {
      phase: worst?.phase ?? 'listing',
      message: worst?.message ?? '',
      relists: all.reduce((n, s) => n + s.relists, 0),
      restarts: all.reduce((n, s) => n + s.restarts, 0),
      lastError: all.map((s) => s.lastError).find((m) => m !== '') ?? '',
      streams: this.slots.size || (this.nsSelector ? 0 : 1),
    };
  }

  private onNamespaces(matching: ReadonlySet<string>): void {
    if (this.stopped) return;
    const changed = new Set([...matching, ...this.desired]);
    this.desired = new Set(matching);
    if (!this.initial) {
      this.initial = new Set(matching);
      this.maybeListed();
    }
    for (const ns of changed) this.syncNamespace(ns);
  }

  private syncNamespace(ns: string): void {
    const slot = this.slots.get(ns) ?? { reflector: undefined, chain: Promise.resolve() };
    this.slots.set(ns, slot);
    slot.chain = slot.chain.then(async () => {
      const want = this.desired.has(ns) && !this.stopped;
      if (want && !slot.reflector) {
        slot.reflector = this.reflectorFor(ns);
        slot.reflector.start();
      } else if (!want && slot.reflector) {
        const r = slot.reflector;
        slot.reflector = undefined;
        await r.stop();
        this.states.delete(ns);
        if (!this.stopped) this.deps.sink.reset(this.name, ns, []);
        // A namespace that left before its first list no longer holds up "listed".
        this.initial?.delete(ns);
        this.maybeListed();
      }
    });
  }

  private startSlot(ns: string | undefined): void {
    const reflector = this.reflectorFor(ns);
    this.slots.set(ns ?? '', { reflector, chain: Promise.resolve() });
    reflector.start();
  }

  private reflectorFor(ns: string | undefined): Reflector {
    const sink = this.deps.sink;
    const key = ns ?? '';
    return new Reflector(
      this.deps.api,
      {
        type: this.type,
        query: ns ? { ...this.query, namespace: ns } : this.query,
        accept: this.accept,
        transform: (o) => this.strip(o),
      },
      {
        reset: (objects) => sink.reset(this.name, ns, objects),
        upsert: (o) => sink.upsert(this.name, o),
        remove: (o) => sink.remove(this.name, o),
        listed: () => {
          this.initial?.delete(key);
          if (ns === undefined) this.markListed();
          else this.maybeListed();
        },
        state: (s) => {
          if (s.phase !== 'stopped') this.states.set(key, s);
          this.deps.onState();
        },
      },
      this.deps.timing,
    );
  }

  private maybeListed(): void {
    if (this.initial && this.initial.size === 0) this.markListed();
  }

  private markListed(): void {
    if (this.listedOnce || this.stopped) return;
    this.listedOnce = true;
    this.deps.sink.listed(this.name);
  }
}

function selectorOf(text: string | undefined): readonly SelectorRequirement[] {
  const parsed = parseLabelSelector(text ?? '');
  return 'error' in parsed ? [] : parsed;
}
