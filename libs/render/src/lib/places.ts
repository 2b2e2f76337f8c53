import { Output, toValueSync, type Template } from 'liquidjs';
import { UNKNOWN_TEXT, argumentPlace, type ArgPlace } from '#haproxy-config';

/**
 * Where each `{{ }}` of a haproxy.cfg template writes, found once when the templates are
 * compiled: keyed by the escaper's filter token, which liquidjs makes afresh for every output
 * and hands to the escaper as `this.token`. `'map'`: an output of a map template, where only
 * control characters matter (HAProxy reads a map value as it stands: no quoting, no `%`, no `$`).
 */
const PLACES = new WeakMap<object, ArgPlace | 'map'>();

/** The place recorded for the escaper's token (undefined: an output the compiler did not see). */
export function placeOf(token: unknown): ArgPlace | 'map' | undefined {
  return token !== null && typeof token === 'object' ? PLACES.get(token) : undefined;
}

// Tags that print text of their own: what they print is not known when compiling.
const PRINTING_TAGS = new Set(['render', 'include', 'echo', 'cycle', 'render_glob', 'liquid']);

/**
 * The literal text before the output at `begin` on its line, as HAProxy will see it: earlier
 * outputs and printing tags become unknown text, other tags nothing; a `{%-`/`{{-` that joins the
 * line to the one before (or an output glued to a tag) makes the line's start unknown.
 */
export function linePrefix(input: string, begin: number): string {
  const start = input.lastIndexOf('\n', begin - 1) + 1;
  let joined = input[begin + 2] === '-';
  const text = input
    .slice(start, begin)
    .replace(/\{\{(-?)[\s\S]*?\}\}/g, (_m, trim: string) => {
      if (trim === '-') joined = true;
      return UNKNOWN_TEXT;
    })
    .replace(/\{%(-?)\s*(\w+)[\s\S]*?%\}/g, (_m, trim: string, name: string) => {
      if (trim === '-') joined = true;
      return PRINTING_TAGS.has(name) ? UNKNOWN_TEXT : '';
    });
  return joined ? `${UNKNOWN_TEXT} ${text}` : text;
}

function outputsOf(templates: readonly Template[], out: Output[]): void {
  for (const t of templates) {
    if (t instanceof Output) out.push(t);
    else if (t.children) outputsOf(toValueSync(t.children(false, true)), out);
  }
}

/** Records where every output of `templates` writes (`map`: the templates of a map file). */
export function recordPlaces(templates: readonly Template[], map = false): void {
  const outputs: Output[] = [];
  outputsOf(templates, outputs);
  for (const o of outputs) {
    const escaper = o.value.filters[o.value.filters.length - 1];
    // (the filter's token is private in liquidjs's types; it is what the escaper gets as this.token)
    const token = (escaper as unknown as { token: object } | undefined)?.token;
    if (!token || PLACES.has(token)) continue;
    const { input, begin } = o.token;
    PLACES.set(token, map ? 'map' : argumentPlace(linePrefix(input, begin)));
  }
}
