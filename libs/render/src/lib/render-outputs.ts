// A render's outputs as the rest of the system reads them: the sections collected from the
// rendered templates and registrations (each a frozen record in name order, the same record
// again for the same entries) and the content hash over all of them.
import { createHash } from 'node:crypto';
import type { CompiledTemplate, CompiledTemplates } from './compile.js';
import type { RenderState } from './state.js';
import type { RenderNotice, RenderProblem, RenderedOutputs } from './types.js';

/** One render attempt: its outputs, or the problems that stopped it. */
export type Attempt =
  | {
      readonly ok: true;
      readonly outputs: RenderedOutputs;
      readonly notices?: readonly RenderNotice[];
    }
  | { readonly ok: false; readonly problems: readonly RenderProblem[] };

type Section = 'maps' | 'files' | 'sslCertificates' | 'crtLists';

/** The last record of each output section, by compiled config (the same entries give it again). */
const LAST_SECTIONS = new WeakMap<CompiledTemplates, Map<Section, Record<string, string>>>();

/**
 * `map` as a record in name order. When it holds the same entries (same names, the same
 * strings) as the last record of this section, that record itself: a one-Ingress change among
 * 500 certificates is not sorted again.
 */
function sorted(
  compiled: CompiledTemplates,
  section: Section,
  map: ReadonlyMap<string, string>,
): Record<string, string> {
  let last = LAST_SECTIONS.get(compiled);
  if (!last) LAST_SECTIONS.set(compiled, (last = new Map<Section, Record<string, string>>()));
  const was = last.get(section);
  if (was && sameEntries(map, was)) return was;
  const record = Object.fromEntries(
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  Object.freeze(record);
  last.set(section, record);
  return record;
}

function sameEntries(map: ReadonlyMap<string, string>, record: Record<string, string>): boolean {
  let n = 0;
  for (const name in record) {
    if (map.get(name) !== record[name]) return false;
    n++;
  }
  return n === map.size;
}

/** The outputs of one attempt from its rendered templates and registrations (or the conflict). */
export function collect(
  compiled: CompiledTemplates,
  state: RenderState,
  rendered: ReadonlyMap<CompiledTemplate, string>,
): Attempt {
  const by = (kind: CompiledTemplate['kind']): Map<string, string> =>
    new Map(
      compiled.templates.filter((t) => t.kind === kind).map((t) => [t.file, rendered.get(t) ?? '']),
    );
  const certs = by('cert');
  for (const [name, content] of state.certificates) {
    if (certs.has(name) && certs.get(name) !== content) {
      const message = `certificate ${name} is both a sslCertificates template and registered with other content`;
      return {
        ok: false,
        problems: [{ code: 'registration-conflict', template: `cert:${name}`, message }],
      };
    }
    certs.set(name, content);
  }
  const files = by('file');
  for (const [name, content] of state.generalFiles) {
    if (files.has(name) && files.get(name) !== content) {
      const message = `general file ${name} is both a files template and registered with other content`;
      return {
        ok: false,
        problems: [{ code: 'registration-conflict', template: `file:${name}`, message }],
      };
    }
    files.set(name, content);
  }
  for (const name of state.crtLists.keys()) {
    if (files.has(name)) {
      const message = `crt-list ${name} has the name of a general file (both live in general storage)`;
      return {
        ok: false,
        problems: [{ code: 'registration-conflict', template: `file:${name}`, message }],
      };
    }
  }
  const haproxy = compiled.templates.find((t) => t.kind === 'haproxy');
  return {
    ok: true,
    outputs: {
      haproxyConfig: haproxy ? (rendered.get(haproxy) ?? '') : '',
      maps: sorted(compiled, 'maps', by('map')),
      files: sorted(compiled, 'files', files),
      sslCertificates: sorted(compiled, 'sslCertificates', certs),
      crtLists: sorted(compiled, 'crtLists', state.crtLists),
    },
  };
}

/** The digests of the outputs last hashed, by output, with the content each was taken of. */
let lastDigests = new Map<string, { readonly content: string; readonly digest: string }>();

/** sha256 (hex) of one output; an output hashed last time with the same content is not again. */
function digestOf(
  key: string,
  content: string,
  next: Map<string, { readonly content: string; readonly digest: string }> | undefined,
): string {
  const was = next ? lastDigests.get(key) : undefined;
  // the same string (a certificate replayed from a kept fragment) compares by reference
  const digest =
    was && was.content === content
      ? was.digest
      : createHash('sha256').update(content).digest('hex');
  next?.set(key, { content, digest });
  return digest;
}

/**
 * sha256 (hex) over every output in a fixed order, each output by its own sha256 (an output
 * that did not change since the last hash is not hashed again, unless `reuse` is false): equal
 * outputs, equal hash.
 */
export function contentHash(outputs: RenderedOutputs, reuse = true): string {
  // `reuse: false` (a full render): every output hashed afresh, nothing kept
  const next = reuse
    ? new Map<string, { readonly content: string; readonly digest: string }>()
    : undefined;
  const parts: string[] = ['haproxy.cfg', digestOf('haproxy.cfg', outputs.haproxyConfig, next)];
  const sections = [
    ['maps', outputs.maps],
    ['files', outputs.files],
    ['sslCertificates', outputs.sslCertificates],
    ['crtLists', outputs.crtLists],
  ] as const;
  for (const [section, record] of sections) {
    for (const [name, content] of Object.entries(record))
      parts.push(section, name, digestOf(`${section}/${name}`, content, next));
  }
  if (next) lastDigests = next;
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
