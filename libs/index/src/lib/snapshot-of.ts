import { Snapshot } from './snapshot.js';
import { ResourceStore } from './store.js';
import type { IndexSnapshot, KubeObject } from './types.js';
import type { ResourceView } from './view.js';

/**
 * Indexes a fixed set of objects with the stores and snapshot production uses (every store kept
 * in full) and returns the snapshot: for offline rendering (`haptic render`, validation tests)
 * and for tests, so they all run the snapshot production runs. Synchronous: nothing is fetched.
 */
export function snapshotOf(
  indexBy: Readonly<Record<string, readonly string[]>>,
  objects: Readonly<Record<string, readonly object[]>>,
): IndexSnapshot {
  const views = new Map<string, ResourceView>();
  for (const [name, paths] of Object.entries(indexBy)) {
    const store = new ResourceStore({ indexBy: [...paths], store: 'full' });
    store.reset(undefined, (objects[name] ?? []) as readonly KubeObject[]);
    views.set(name, store.view());
  }
  return new Snapshot(0, views);
}
