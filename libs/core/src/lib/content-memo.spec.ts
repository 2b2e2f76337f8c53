import { describe, expect, it } from 'vitest';
import { ContentMemo } from './content-memo.js';

describe('ContentMemo', () => {
  it('computes once per text, including undefined results, and forgets the oldest past its bound', () => {
    const memo = new ContentMemo<string | undefined>(2);
    const calls: string[] = [];
    const f = (t: string) => (calls.push(t), t === 'ok' ? undefined : t.toUpperCase());
    expect(memo.get('a', f)).toBe('A');
    expect(memo.get('ok', f)).toBeUndefined();
    expect(memo.get('a', f)).toBe('A');
    expect(memo.get('ok', f)).toBeUndefined();
    expect(calls).toEqual(['a', 'ok']);
    memo.get('b', f); // 'a' is the least recently used now
    expect(memo.size).toBe(2);
    memo.get('ok', f);
    memo.get('a', f);
    expect(calls).toEqual(['a', 'ok', 'b', 'a']);
  });
});
