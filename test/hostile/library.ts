import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
