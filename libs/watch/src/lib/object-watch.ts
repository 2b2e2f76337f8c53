import type { KubeApi, ResourceType } from './kube-api.js';
import type { KubeObject } from './ports.js';
import { Reflector, type ReflectorState, type ReflectorTiming } from './reflector.js';

/** Called with the current objects of a small watched set, whenever it changes. */
export type ObjectsListener = (objects: readonly KubeObject[], state: 'listed' | 'changed') => void;

/**
 * A list+watch of a small set of objects kept in memory here (the config resource, the
 * credentials Secret, the HAProxy pods): not indexed, just handed on whole on every change.
 */
export class ObjectWatch {
  private readonly objects = new Map<string, KubeObject>();
  private readonly reflector: Reflector;
  private listedOnce = false;
  state: ReflectorState | undefined;

  constructor(
    api: KubeApi,
    type: ResourceType,
    query: { namespace?: string; labelSelector?: string; fieldSelector?: string },
    private readonly listener: ObjectsListener,
    timing: ReflectorTiming,
    onState: () => void = () => undefined,
  ) {
    this.reflector = new Reflector(
      api,
      { type, query },
      {
        reset: (list) => {
          this.objects.clear();
          for (const o of list) this.objects.set(keyOf(o), o);
          if (this.listedOnce) this.emit('changed');
        },
        upsert: (o) => {
          this.objects.set(keyOf(o), o);
          if (this.listedOnce) this.emit('changed');
        },
        remove: (o) => {
          if (this.objects.delete(keyOf(o)) && this.listedOnce) this.emit('changed');
        },
        listed: () => {
          this.listedOnce = true;
          this.emit('listed');
        },
        state: (s) => {
          this.state = s;
          onState();
        },
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

  private emit(state: 'listed' | 'changed'): void {
    const sorted = [...this.objects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.listener(
      sorted.map(([, o]) => o),
      state,
    );
  }
}

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}
