import type { RenderNoticeFact } from '#events';

const keyOf = (n: RenderNoticeFact): string =>
  `${n.watched}/${n.object.namespace ?? ''}/${n.object.name}\n${n.reason}\n${n.message}`;

/**
 * Which render notices are new since the last list seen: a notice gets one Event when it
 * appears (not one per render); gone and back again, it gets another.
 */
export class NoticeTracker {
  private seen = new Set<string>();

  /** The notices of `current` not in the previous list; `current` becomes the list seen. */
  fresh(current: readonly RenderNoticeFact[]): RenderNoticeFact[] {
    const next = new Set<string>();
    const out: RenderNoticeFact[] = [];
    for (const n of current) {
      const key = keyOf(n);
      if (!this.seen.has(key) && !next.has(key)) out.push(n);
      next.add(key);
    }
    this.seen = next;
    return out;
  }
}
