import { isIP } from 'node:net';
import { toValue, type Context } from 'liquidjs';
import { FORBIDDEN_CHARS, charName, outputText, preview } from './escaper.js';
import { certificateProblem } from './certificates.js';
import { QuotedWord } from './quoted-word.js';
import { TemplateValueError, attributeValue, innermostObject, sameValue } from './provenance.js';

type FilterThis = { context: Context };

/** Raises an invalid-value error attributed to the watched object the value came from. */
export function invalid(ctx: Context, filter: string, value: string, reason: string): never {
  const message = `${filter}: ${preview(value)} ${reason}`;
  throw TemplateValueError.at(ctx, 'invalid-value', message, attributeValue(ctx, sameValue(value)));
}

function text(input: unknown): string {
  return outputText(toValue(input));
}

function noControl(ctx: Context, filter: string, value: string): void {
  const bad = FORBIDDEN_CHARS.exec(value);
  if (bad) invalid(ctx, filter, value, `contains ${charName(bad[0])}`);
}

/** `haproxy_quote`: a double-quoted HAProxy word; `\`, `"` and `$` are escaped (and `%` in a log-format). */
export function haproxyQuote(this: FilterThis, input: unknown): QuotedWord {
  const v = text(input);
  noControl(this.context, 'haproxy_quote', v);
  return new QuotedWord(v, 'double');
}

/**
 * `header_value`: a quoted log-format value for set-header/add-header; `%` is doubled so the value
 * is not read as a log-format expression (`%[...]` would run a sample fetch).
 */
export function headerValue(this: FilterThis, input: unknown): QuotedWord {
  const v = text(input);
  noControl(this.context, 'header_value', v);
  return new QuotedWord(v, 'double', 'log-format');
}

/** `regex_escape`: the text as a literal PCRE pattern (no HAProxy word escaping). */
export function regexEscape(input: unknown): string {
  return text(input).replace(/[\\^$.|?*+()[\]{}/-]/g, '\\$&');
}

/** `haproxy_regex`: a literal PCRE pattern written as one unquoted HAProxy word. */
export function haproxyRegex(this: FilterThis, input: unknown): QuotedWord {
  const v = text(input);
  noControl(this.context, 'haproxy_regex', v);
  // an empty pattern would leave no word at all: the line would lose an argument
  if (v === '') invalid(this.context, 'haproxy_regex', v, 'is empty');
  return new QuotedWord(regexEscape(v), 'none');
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why a text is not a host name for `valid_hostname` (undefined when it is one). */
export function hostnameProblem(v: string): string | undefined {
  // Lower-case ASCII only: String#toLowerCase maps look-alikes such as the Kelvin sign (U+212A)
  // to ASCII letters, which would let a look-alike host pass as another one.
  const host = v.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const labels = (host.startsWith('*.') ? host.slice(2) : host).split('.');
  if (host.length === 0 || host.length > 253 || !labels.every((l) => LABEL.test(l))) {
    return `valid_hostname: ${preview(v)} is not a valid host name`;
  }
  return undefined;
}

/** `valid_hostname`: a DNS host name (optionally `*.` wildcard), lower-cased; refuses others. */
export function validHostname(this: FilterThis, input: unknown): string {
  const v = text(input);
  if (hostnameProblem(v) !== undefined) {
    invalid(this.context, 'valid_hostname', v, 'is not a valid host name');
  }
  return v.toLowerCase();
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * `base64_decode` (replaces Liquid's own): text that is not base64 is an `invalid-value` problem
 * attributed to the object it came from (a Secret's data), not a failure of the whole render.
 */
export function base64Decode(this: FilterThis, input: unknown): string {
  const v = text(input);
  const known = DECODED.get(v);
  if (known !== undefined) return known;
  if (!BASE64.test(v)) invalid(this.context, 'base64_decode', v, 'is not base64');
  const decoded = Buffer.from(v, 'base64').toString('utf8');
  // Secrets are decoded by every render (certificates, auth): each text once while it is used.
  decodedChars += v.length + decoded.length;
  if (decodedChars > DECODED_MAX_CHARS) {
    DECODED.clear();
    decodedChars = v.length + decoded.length;
  }
  DECODED.set(v, decoded);
  return decoded;
}

/** Decoded texts by their base64 (up to ~16 MiB of text, then started afresh). */
const DECODED = new Map<string, string>();
const DECODED_MAX_CHARS = 8 * 1024 * 1024;
let decodedChars = 0;

const PATH = /^\/(?:[A-Za-z0-9\-._~!$&()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;

/** Why a text is not a URL path for `valid_path` (undefined when it is one). */
export function pathProblem(v: string): string | undefined {
  if (v.length > 2048 || !PATH.test(v)) return `valid_path: ${preview(v)} is not a valid URL path`;
  return undefined;
}

/** `valid_path`: an absolute URL path of safe characters; refuses quotes, spaces, `#`, `\`. */
export function validPath(this: FilterThis, input: unknown): string {
  const v = text(input);
  if (pathProblem(v) !== undefined)
    invalid(this.context, 'valid_path', v, 'is not a valid URL path');
  return v;
}

const DURATION = /^\d{1,9}(?:us|ms|s|m|h|d)?$/;

/** `valid_duration`: an HAProxy time value such as 500ms, 30s or 5m; refuses others. */
export function validDuration(this: FilterThis, input: unknown): string {
  const v = text(input).trim();
  if (!DURATION.test(v)) {
    invalid(this.context, 'valid_duration', v, 'is not a duration (like 500ms, 30s, 5m)');
  }
  return v;
}

/** `int_range: 1, 65535`: an integer within the bounds (inclusive); refuses others. */
export function intRange(this: FilterThis, input: unknown, min: unknown, max: unknown): number {
  const v = text(input).trim();
  const n = /^-?\d{1,15}$/.test(v) ? Number(v) : NaN;
  const lo = min === undefined || min === null ? -Infinity : Number(min);
  const hi = max === undefined || max === null ? Infinity : Number(max);
  if (!Number.isInteger(n) || n < lo || n > hi) {
    invalid(this.context, 'int_range', v, `is not an integer in [${String(min)}, ${String(max)}]`);
  }
  return n;
}

/** `valid_cidr`: an IPv4/IPv6 address or CIDR (`10.0.0.0/8`, `fd00::/8`); refuses others. */
export function validCidr(this: FilterThis, input: unknown): string {
  const v = text(input).trim();
  const [address = '', bits, ...rest] = v.split('/');
  const family = isIP(address);
  const max = family === 6 ? 128 : 32;
  const okBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
  if (family === 0 || !okBits || rest.length > 0) {
    invalid(this.context, 'valid_cidr', v, 'is not an IP address or CIDR');
  }
  return v;
}

/**
 * `crt | valid_certificate: key`: the PEM text unchanged when HAProxy can load it — at least one
 * certificate that parses and, when a key is given or included, the key of the first one. Else an
 * `invalid-value` problem attributed to the object being rendered (the Secret), so that object is
 * quarantined instead of the whole configuration failing `haproxy -c`.
 */
export function validCertificate(this: FilterThis, input: unknown, key?: unknown): string {
  const crt = text(input);
  const k = key === undefined || key === null ? '' : text(key);
  const problem = certificateProblem(k === '' ? crt : `${crt}\n${k}`);
  if (problem !== undefined) {
    const message = `valid_certificate: the certificate ${problem}`;
    throw TemplateValueError.at(
      this.context,
      'invalid-value',
      message,
      innermostObject(this.context),
    );
  }
  return crt;
}
