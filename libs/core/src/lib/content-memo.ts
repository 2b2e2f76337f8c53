import { createHash } from 'node:crypto';

/**
 * Results of a costly pure function of a text (parsing a certificate or a key), remembered by the
 * text's SHA-256 so the texts themselves are not kept; the least recently used go first past
 * `maxEntries`. Renders check the same 1,000 certificates on every pass: hashing one is
 * microseconds, parsing its key is milliseconds.
 */
export class ContentMemo<V> {
  private readonly results = new Map<string, V>();

  constructor(private readonly maxEntries = 4096) {}

  /** `compute(text)`, or what it returned for the same text before. */
  get(text: string, compute: (text: string) => V): V {
    const key = createHash('sha256').update(text).digest('base64');
    if (this.results.has(key)) {
      const v = this.results.get(key) as V;
      this.results.delete(key);
      this.results.set(key, v);
      return v;
    }
    const v = compute(text);
    this.results.set(key, v);
    if (this.results.size > this.maxEntries) {
      const oldest = this.results.keys().next().value;
      if (oldest !== undefined) this.results.delete(oldest);
    }
    return v;
  }

  get size(): number {
    return this.results.size;
  }
}
