import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { parseTemplateConfigText, type TemplateConfig } from '#core';
import { snapshotOf } from '#index';
import { compileTemplates, render, type CompiledTemplates, type RenderResult } from '#render';
import type { Obj } from './objects.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The Ingress library as shipped, assembled by the real assembler (text and parsed). */
export function assembleIngressLibrary(): { text: string; config: TemplateConfig } {
  const dir = mkdtempSync(join(tmpdir(), 'haptic-hostile-lib-'));
  try {
    const out = join(dir, 'ingress-library.yaml');
    execFileSync(process.execPath, ['scripts/assemble-library.mjs', '--out', out], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const text = readFileSync(out, 'utf8');
    const parsed = parseTemplateConfigText(text);
    if (!parsed.ok) throw new Error('the assembled Ingress library does not parse');
    return { text, config: parsed.config };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The annotation an operator's own template writes into a header through a bare `{{ }}`. */
export const ROUTE_TAG = 'example/route-tag';

/**
 * An operator's extension of the library, as a new user writes one (issue 38's reproducer): an
 * annotation printed into `http-request set-header` (a log-format argument) by a bare `{{ }}`,
 * with no typed filter, so the corpus judges the escaper's own reading of the place.
 */
const ROUTE_TAG_SNIPPET = `{%- for ing in ing_ours %}
{%- assign tag = ing.metadata.annotations["${ROUTE_TAG}"] %}
{%- if tag != blank %}
  http-request set-header X-Route-Tag {{ tag }} if { req.hdr(host),field(1,:),lower -m str {{ ing.spec.rules[0].host }} }
{%- endif %}
{%- endfor %}
`;

/**
 * The library the corpus runs: the shipped Ingress library (typed filters) plus the operator's
 * bare `{{ }}` snippet above (a `frontend-http-*` extension point), as text and parsed.
 */
export function corpusLibrary(): { text: string; config: TemplateConfig } {
  const resource = parse(assembleIngressLibrary().text) as {
    spec: { templateSnippets: Record<string, { template: string }> };
  };
  resource.spec.templateSnippets['frontend-http-route-tag'] = { template: ROUTE_TAG_SNIPPET };
  const text = stringify(resource, { lineWidth: 0 });
  const parsed = parseTemplateConfigText(text);
  if (!parsed.ok) throw new Error('the corpus library does not parse');
  return { text, config: parsed.config };
}

const WATCHED: Readonly<Record<string, string>> = {
  Ingress: 'ingresses',
  IngressClass: 'ingressclasses',
  Service: 'services',
  EndpointSlice: 'endpointslices',
  Secret: 'secrets',
};

/** Renders objects with the library as the controller does (quarantine on). */
export class LibraryRenderer {
  private readonly compiled: CompiledTemplates;

  constructor(private readonly config: TemplateConfig) {
    const c = compileTemplates(config.spec);
    if (!c.ok) throw new Error(c.error.map((p) => p.message).join('; '));
    this.compiled = c.value;
  }

  render(objects: readonly Obj[]): RenderResult {
    const byWatched: Record<string, object[]> = {};
    for (const o of objects) {
      const w = WATCHED[o.kind];
      if (w === undefined) throw new Error(`the corpus holds an unwatched kind ${o.kind}`);
      (byWatched[w] ??= []).push(o);
    }
    const indexBy = Object.fromEntries(
      Object.entries(this.config.spec.watchedResources).map(([k, v]) => [k, v.indexBy]),
    );
    return render(this.compiled, snapshotOf(indexBy, byWatched), {});
  }
}
