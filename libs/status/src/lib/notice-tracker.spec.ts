import { describe, expect, it } from 'vitest';
import type { RenderNoticeFact } from '#events';
import { NoticeTracker } from './notice-tracker.js';

const notice = (name: string, message = 'annotation x is not honoured'): RenderNoticeFact => ({
  watched: 'ingresses',
  object: { namespace: 'apps', name },
  reason: 'AnnotationNotHonoured',
  message,
});

describe('NoticeTracker', () => {
  it('gives each notice once while it stays, and again after it went away', () => {
    const t = new NoticeTracker();
    expect(t.fresh([notice('a'), notice('a')])).toEqual([notice('a')]);
    expect(t.fresh([notice('a')])).toEqual([]);
    expect(t.fresh([notice('a'), notice('b')])).toEqual([notice('b')]);
    expect(t.fresh([notice('b')])).toEqual([]);
    expect(t.fresh([notice('a'), notice('b')])).toEqual([notice('a')]);
  });

  it('tells notices apart by object and message', () => {
    const t = new NoticeTracker();
    t.fresh([notice('a')]);
    expect(t.fresh([notice('a', 'annotation y is unknown')])).toEqual([
      notice('a', 'annotation y is unknown'),
    ]);
    expect(t.fresh([{ ...notice('a'), object: { namespace: 'other', name: 'a' } }])).toHaveLength(
      1,
    );
  });
});
