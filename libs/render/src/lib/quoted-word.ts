import { writeLiteral, type ArgKind, type Quoting } from '#haproxy-config';

/**
 * A word an escaping filter made: the literal `value` and how it is written. Printed alone it is
 * the filter's documented text; the output escaper, which knows the argument's kind where the
 * `{{ }}` stands (`#haproxy-config` `argumentPlace`), writes it for that kind instead — so
 * `haproxy_quote` in a log-format argument doubles `%` too. Keep the filter last in the `{{ }}`:
 * text made from it by later filters is a plain string again.
 */
export class QuotedWord {
  constructor(
    /** The text HAProxy must read. */
    readonly value: string,
    /** `double`: in double quotes (haproxy_quote, header_value); `none`: unquoted (haproxy_regex). */
    readonly quoting: 'double' | 'none',
    /** The kind the filter fixes whatever the place (`header_value`: always a log-format). */
    readonly kind?: ArgKind,
  ) {}

  /** The word for `kind` (undefined: the filter's own), or undefined where none is literal. */
  writtenFor(kind: ArgKind | undefined, quoting: Quoting = 'none'): string | undefined {
    const w = writeLiteral(
      this.value,
      this.kind ?? kind ?? 'word',
      quoting === 'none' ? this.quoting : quoting,
    );
    if (!w.ok) return undefined;
    return quoting === 'none' && this.quoting === 'double' ? `"${w.text}"` : w.text;
  }

  toString(): string {
    return this.writtenFor(undefined) ?? '';
  }
}
