import { matchesLabelSelector, type SelectorRequirement } from '#core';
import type { KubeApi } from './kube-api.js';
import { Reflector, type ReflectorState, type ReflectorTiming } from './reflector.js';

/** Receives the names of the namespaces matching a selector, whenever that set changes. */
export type NamespaceListener = (matching: ReadonlySet<string>) => void;

interface Subscription {
  readonly selector: readonly SelectorRequirement[];
  readonly listener: NamespaceListener;
  last: string | undefined;
}

/**
 * Watches Namespaces (labels only) for every namespaceSelector: subscribers learn which
 * namespaces match, first once the namespaces are listed, then on every change.
 */
export class NamespaceTracker {
  private readonly labels = new Map<string, Readonly<Record<string, string>>>();
  private readonly subs = new Set<Subscription>();
  private readonly reflector: Reflector;
  private synced = false;
  state: ReflectorState | undefined;

  constructor(api: KubeApi, timing: ReflectorTiming) {
    this.reflector = new Reflector(
      api,
      { type: { apiVersion: 'v1', plural: 'namespaces' }, query: {} },
      {
        reset: (objects) => {
          this.labels.clear();
          for (const o of objects) this.labels.set(o.metadata.name, o.metadata.labels ?? {});
          this.notify();
        },
        upsert: (o) => {
          this.labels.set(o.metadata.name, o.metadata.labels ?? {});
          this.notify();
        },
        remove: (o) => {
          this.labels.delete(o.metadata.name);
          this.notify();
        },
        listed: () => {
          this.synced = true;
          this.notify();
        },
        state: (s) => (this.state = s),
      },
      timing,
    );
  }

  start(): void {
    this.reflector.start();
  }

  stop(): Promise<void> {
    return this.reflector.stop();
  }

  /** Subscribes; the listener is called at once when namespaces are already listed. */
  subscribe(selector: readonly SelectorRequirement[], listener: NamespaceListener): () => void {
    const sub: Subscription = { selector, listener, last: undefined };
    this.subs.add(sub);
    if (this.synced) this.notifyOne(sub);
    return () => this.subs.delete(sub);
  }

  private notify(): void {
    if (!this.synced) return;
    for (const sub of this.subs) this.notifyOne(sub);
  }

  private notifyOne(sub: Subscription): void {
    const matching = [...this.labels]
      .filter(([, labels]) => matchesLabelSelector(sub.selector, labels))
      .map(([name]) => name)
      .sort();
    const key = matching.join('\n');
    if (key === sub.last) return;
    sub.last = key;
    sub.listener(new Set(matching));
  }
}
