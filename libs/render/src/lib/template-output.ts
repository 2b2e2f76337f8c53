// A template's output as the pieces its tags wrote: a render that writes the same pieces as the
// last one (kept fragments' outputs are the same strings; the rest is short) gives the last
// render's text itself, so an unchanged haproxy.cfg of megabytes is neither concatenated again
// nor compared or hashed again (its digest is kept by reference, see render.ts `digestOf`).
import type { Emitter } from 'liquidjs';
import { outputText } from './escaper.js';
import { sameItems } from './same-items.js';

/** The pieces a template wrote last time and the text they made. */
interface LastOutput {
  readonly pieces: readonly string[];
  readonly text: string;
}

const LAST = new WeakMap<object, LastOutput>();

/**
 * Collects the output of one template (`site`: what its last output is kept for, or undefined
 * to keep nothing) as pieces; `text()`, once the template is rendered, is the text.
 */
export class TemplateOutput implements Emitter {
  private readonly pieces: string[] = [];

  constructor(private readonly site: object | undefined) {}

  write(html: unknown): void {
    // Liquid's own stringification, as its emitter's
    this.pieces.push(outputText(html));
  }

  /**
   * Not the text: liquidjs reads it at the end of every block rendered into this emitter (a
   * `for`, an `if`) and drops it (every built-in tag and haptic's own do); see `text()`.
   */
  get buffer(): string {
    return '';
  }

  /** The text written, once the template is rendered (the last one's when the pieces are equal). */
  text(): string {
    const { site, pieces } = this;
    const last = site ? LAST.get(site) : undefined;
    // Equal pieces (mostly the same strings: compared by reference first), equal text.
    const text = last && sameItems(last.pieces, pieces) ? last.text : pieces.join('');
    if (site) LAST.set(site, { pieces, text });
    return text;
  }
}
