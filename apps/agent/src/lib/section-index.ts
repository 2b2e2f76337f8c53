import { parseSections } from '#haproxy-config';

/** A queued change of one backend (or listen) section: its text in, its new text out. */
export interface SectionEdit {
  readonly backend: string;
  readonly edit: (section: string) => string;
}

/**
 * A configuration's lines with where each backend (and listen) section starts and ends, kept
 * current across section edits: the file is parsed once per written body, and a runtime change
 * costs the size of its section, not of the configuration.
 */
export class SectionIndex {
  private readonly lines: string[];
  private readonly spans = new Map<string, { start: number; end: number }>();

  constructor(text: string) {
    this.lines = text.split('\n');
    for (const s of parseSections(text)) {
      // the first of a name, as backendServers finds it
      if ((s.type === 'backend' || s.type === 'listen') && !this.spans.has(s.name))
        this.spans.set(s.name, { start: s.start, end: s.end });
    }
  }

  /**
   * Applies the edits in order; an edit of a section the text does not hold is dropped (a
   * runtime change of a server the file does not name has nothing to write). True when the text
   * changed.
   */
  apply(edits: readonly SectionEdit[]): boolean {
    let changed = false;
    for (const e of edits) {
      const span = this.spans.get(e.backend);
      if (!span) continue;
      const before = this.lines.slice(span.start, span.end).join('\n');
      const after = e.edit(before);
      if (after === before) continue;
      changed = true;
      const next = after.split('\n');
      const delta = next.length - (span.end - span.start);
      this.lines.splice(span.start, span.end - span.start, ...next);
      if (delta !== 0) {
        for (const s of this.spans.values()) {
          if (s.start > span.start) {
            s.start += delta;
            s.end += delta;
          }
        }
        span.end += delta;
      }
    }
    return changed;
  }

  /** The whole text. */
  text(): string {
    return this.lines.join('\n');
  }
}

/** Applies section edits to a text in one pass (see SectionIndex). */
export function applySectionEdits(text: string, edits: readonly SectionEdit[]): string {
  if (edits.length === 0) return text;
  const index = new SectionIndex(text);
  return index.apply(edits) ? index.text() : text;
}
