import { TooManyKeysError, UnknownResourceError } from '../index.errors.js';
import { keyPart } from './keys.js';
import type { IndexSnapshot, OverlayChange, StoredObject } from './types.js';
import type { ResourceView } from './view.js';

/** An immutable snapshot: one view per watched resource. */
export class Snapshot implements IndexSnapshot {
  constructor(
    readonly version: number,
    private readonly views: ReadonlyMap<string, ResourceView>,
  ) {}

  names(): readonly string[] {
    return [...this.views.keys()].sort();
  }

  list(resource: string): readonly StoredObject[] {
    return this.view(resource).objects();
  }

  lookup(resource: string, keys: readonly unknown[]): readonly StoredObject[] {
    const view = this.view(resource);
    if (keys.length > view.paths.length) {
      throw new TooManyKeysError(resource, keys.length, view.paths.length);
    }
    return view.lookup(keys.map(keyPart));
  }

  withOverlay(changes: readonly OverlayChange[]): IndexSnapshot {
    const views = new Map(this.views);
    for (const c of changes) {
      views.set(c.resource, this.viewIn(views, c.resource).withChange(c.operation, c.object));
    }
    return new Snapshot(this.version, views);
  }

  private view(resource: string): ResourceView {
    return this.viewIn(this.views, resource);
  }

  private viewIn(views: ReadonlyMap<string, ResourceView>, resource: string): ResourceView {
    const view = views.get(resource);
    if (!view) throw new UnknownResourceError(resource);
    return view;
  }
}
