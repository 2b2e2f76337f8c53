/**
 * The hazards of the hostile-input corpus: each is a piece of text inserted into a field of an
 * otherwise harmless object. `kind` groups them for the coverage table.
 */
export interface Hazard {
  readonly id: string;
  readonly kind: 'control' | 'syntax' | 'expansion' | 'unicode' | 'size';
  readonly text: string;
}

export const HAZARDS: readonly Hazard[] = [
  { id: 'newline', kind: 'control', text: '\n' },
  { id: 'carriage-return', kind: 'control', text: '\r' },
  { id: 'crlf', kind: 'control', text: '\r\n' },
  { id: 'nul', kind: 'control', text: '\0' },
  { id: 'tab', kind: 'control', text: '\t' },
  { id: 'directive-injection', kind: 'control', text: '\n  http-request deny\nbackend evil\n' },
  { id: 'hash', kind: 'syntax', text: '#' },
  { id: 'hash-comment', kind: 'syntax', text: ' #x' },
  { id: 'double-quote', kind: 'syntax', text: '"' },
  { id: 'single-quote', kind: 'syntax', text: "'" },
  { id: 'backslash', kind: 'syntax', text: '\\' },
  { id: 'space', kind: 'syntax', text: ' ' },
  { id: 'semicolon', kind: 'syntax', text: ';' },
  { id: 'escaped-semicolon', kind: 'syntax', text: '\\;' },
  { id: 'cli-command', kind: 'syntax', text: ';shutdown sessions server be/s1' },
  // The expansion family: what HAProxy evaluates in a log-format argument (sample fetches,
  // converters, flags, log variables, a lone `%`) and expands inside double quotes
  // (environment variables), alone and wrapped in the quoting and escapes that could smuggle
  // them past an escaper. Each must reach HAProxy as the literal text.
  { id: 'log-format', kind: 'expansion', text: '%[env(HOME)]' },
  { id: 'sample-fetch-cookie', kind: 'expansion', text: '%[req.hdr(cookie)]' },
  { id: 'log-format-flags', kind: 'expansion', text: '%{+Q}[env(PATH)]' },
  { id: 'converter', kind: 'expansion', text: '%[src,lower]' },
  { id: 'log-variable', kind: 'expansion', text: '%ci' },
  { id: 'lone-percent', kind: 'expansion', text: '%' },
  { id: 'double-percent', kind: 'expansion', text: '%%' },
  { id: 'env-braces', kind: 'expansion', text: '${HOME}' },
  { id: 'env-dollar', kind: 'expansion', text: '$HOME' },
  { id: 'env-quoted', kind: 'expansion', text: '"${HOME}"' },
  { id: 'env-quoted-dollar', kind: 'expansion', text: '"$HOME"' },
  { id: 'log-format-quoted', kind: 'expansion', text: '"%[env(HOME)]"' },
  { id: 'env-single-quoted', kind: 'expansion', text: "'${HOME}'" },
  { id: 'env-escaped', kind: 'expansion', text: '\\${HOME}' },
  { id: 'log-format-escaped', kind: 'expansion', text: '\\%[env(HOME)]' },
  { id: 'quote-break-env', kind: 'expansion', text: '\\"${HOME}\\"' },
  { id: 'next-line', kind: 'unicode', text: '\u0085' },
  { id: 'line-separator', kind: 'unicode', text: '\u2028' },
  { id: 'right-to-left-override', kind: 'unicode', text: '\u202e' },
  { id: 'zero-width-space', kind: 'unicode', text: '\u200b' },
  { id: 'kelvin-sign', kind: 'unicode', text: '\u212a' },
  { id: 'cyrillic-a', kind: 'unicode', text: '\u0430' },
  { id: 'fullwidth-dot', kind: 'unicode', text: '\uff0e' },
  { id: 'fullwidth-solidus', kind: 'unicode', text: '\uff0f' },
  { id: 'dotted-capital-i', kind: 'unicode', text: '\u0130' },
  { id: 'very-long', kind: 'size', text: 'x'.repeat(10_000) },
];
