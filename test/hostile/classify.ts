import { configLines, escapeCliArg } from '#haproxy-config';
import type { RenderedOutputs, RenderResult } from '#render';
import { meaningDifferences } from './meaning.js';
import type { Obj } from './objects.js';

/** What became of one hostile case. */
export type Verdict =
  | { readonly kind: 'quarantined'; readonly reason: string }
  | { readonly kind: 'rendered-safely' }
  | { readonly kind: 'injection'; readonly detail: string }
  | { readonly kind: 'unaccounted'; readonly detail: string };

/** The structure of haproxy.cfg: per logical line, its section, first word and word count. */
export function cfgShape(cfg: string): string[] {
  return configLines(cfg).map((l) => `${l.section}|${l.words[0] ?? ''}|${l.words.length}`);
}

/** The structure of a map file or crt-list: per line, its word count ("#" lines are comments). */
export function lineShape(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (l.trimStart().startsWith('#') ? 'comment' : `${l.trim().split(/\s+/).length}`));
}

/** True when `sub` is `full` with some lines left out (order kept). */
function isSubsequence(sub: readonly string[], full: readonly string[]): boolean {
  let j = 0;
  for (const s of sub) {
    while (j < full.length && full[j] !== s) j++;
    if (j++ >= full.length) return false;
  }
  return true;
}

function sameShape(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k]);
}

/**
 * Every difference between hostile and twin outputs that is more than a value token: a line or
 * directive gained, a word split, a map or crt-list line broken, a look-alike in a route key, a
 * map line the runtime CLI could not carry. `partial` allows lines to be missing (an object left
 * out), never added.
 */
export function structuralDifferences(
  hostile: RenderedOutputs,
  twin: RenderedOutputs,
  partial: boolean,
): string[] {
  const out: string[] = [];
  const fits = (a: string[], b: string[]) => (partial ? isSubsequence(a, b) : sameShape(a, b));
  if (!fits(cfgShape(hostile.haproxyConfig), cfgShape(twin.haproxyConfig)))
    out.push('haproxy.cfg: lines or words differ from the twin beyond value tokens');
  const tables = [
    ['map', hostile.maps, twin.maps],
    ['crt-list', hostile.crtLists, twin.crtLists],
  ] as const;
  for (const [what, h, t] of tables) {
    for (const [file, text] of Object.entries(h)) {
      const shape = lineShape(text);
      if (!fits(shape, lineShape(t[file] ?? '')))
        out.push(`${what} ${file}: lines or words differ from the twin`);
      if (shape.includes('comment')) out.push(`${what} ${file}: a line became a comment`);
    }
  }
  for (const [file, text] of Object.entries(hostile.maps)) {
    for (const line of text.split('\n').filter((l) => l !== '')) {
      if (/[^\x21-\x7e ]/.test(line)) out.push(`map ${file}: non-ASCII or control text in ${line}`);
      for (const word of line.split(' ')) {
        try {
          escapeCliArg(word);
        } catch (e) {
          out.push(`map ${file}: ${word} cannot be a runtime argument: ${(e as Error).message}`);
        }
      }
    }
  }
  const certs = (o: RenderedOutputs) => Object.keys(o.sslCertificates).length;
  if (partial ? certs(hostile) > certs(twin) : certs(hostile) !== certs(twin))
    out.push('certificates: not as many files as the twin');
  return out;
}

const refOf = (o: Obj) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** The indexes (in the case's objects) of the objects a render left out. */
export function quarantinedIndexes(objects: readonly Obj[], hostile: RenderResult): Set<number> {
  const refs = objects.map(refOf);
  return new Set(
    hostile.quarantined.map((q) => refs.indexOf(`${q.object.namespace ?? ''}/${q.object.name}`)),
  );
}

/**
 * Classifies a hostile render. `twinWithout(left)` renders the twin without the objects at the
 * indexes `left` (the twins of what the hostile render quarantined): a quarantine must leave out
 * exactly those objects (same bytes), and a render without quarantine must differ from the twin
 * only in value tokens, each of which HAProxy reads as the twin's text with one of `literal`
 * (the hazard's text, `HostileCase.literal`) inserted and nothing left live.
 */
export function classify(
  objects: readonly Obj[],
  hostile: RenderResult,
  twin: RenderedOutputs,
  twinWithout: (left: ReadonlySet<number>) => RenderResult,
  literal: readonly string[],
): Verdict {
  if (!hostile.ok) {
    const why = hostile.problems.map((p) => p.message).join('; ');
    return { kind: 'unaccounted', detail: `the whole render failed: ${why.slice(0, 300)}` };
  }
  const left = quarantinedIndexes(objects, hostile);
  if (left.has(-1)) {
    const names = hostile.quarantined.map((q) => `${q.object.namespace ?? ''}/${q.object.name}`);
    return {
      kind: 'unaccounted',
      detail: `objects outside the case left out: ${names.join(', ')}`,
    };
  }
  if (left.size === 0) {
    const shape = structuralDifferences(hostile.outputs, twin, false);
    const diffs = shape.length > 0 ? shape : meaningDifferences(hostile.outputs, twin, literal);
    return diffs.length > 0
      ? { kind: 'injection', detail: diffs.join('; ') }
      : { kind: 'rendered-safely' };
  }
  const expected = twinWithout(left);
  if (!expected.ok || expected.hash !== hostile.hash) {
    const diffs = expected.ok
      ? structuralDifferences(hostile.outputs, expected.outputs, false)
      : [];
    const detail = `the render differs from the twin's without the quarantined objects: ${diffs.join('; ')}`;
    return { kind: diffs.length > 0 ? 'injection' : 'unaccounted', detail };
  }
  return {
    kind: 'quarantined',
    reason: hostile.quarantined.map((q) => q.problem.message).join('; '),
  };
}
