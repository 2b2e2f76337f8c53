import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import {
  InputUnreadableError,
  matchesLabelSelector,
  parseFieldPath,
  parseLabelSelector,
  parseYamlDocuments,
  withoutFieldPath,
  type DeepReadonly,
  type TemplateConfigSpec,
} from '#core';

const MANIFEST_EXT = new Set(['.yaml', '.yml', '.json']);

async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(path).catch((e: unknown) => {
    throw new InputUnreadableError(`cannot read ${path}: ${(e as Error).message}`, { cause: e });
  });
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  const nested: string[][] = [];
  for (const e of entries) {
    if (e.isDirectory()) nested.push(await filesUnder(join(path, e.name)));
    else if (MANIFEST_EXT.has(extname(e.name))) nested.push([join(path, e.name)]);
  }
  return nested.flat();
}

/** `kind: List` (and `*List`) documents are flattened into their items. */
function flatten(doc: unknown): unknown[] {
  const d = doc as { kind?: unknown; items?: unknown };
  if (typeof d?.kind === 'string' && d.kind.endsWith('List') && Array.isArray(d.items)) {
    return d.items.flatMap(flatten);
  }
  return [doc];
}

/**
 * A file that is one JSON document, parsed as JSON (the YAML parser takes about 100 times as
 * long and much more memory on a large `kubectl get -o json` list); undefined for anything else,
 * which the YAML parser then reads (and reports on).
 */
function asJson(text: string): unknown {
  const first = /\S/.exec(text)?.[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Kubernetes objects from YAML or JSON files and folders (recursively, in name order). */
export async function loadManifests(paths: readonly string[]): Promise<unknown[]> {
  const objects: unknown[] = [];
  for (const file of (await Promise.all(paths.map(filesUnder))).flat()) {
    const text = await readFile(file, 'utf8');
    const json = asJson(text);
    if (json !== undefined) {
      // a loop, not push(...): a `kubectl get -o json` List may hold more items than call arguments
      if (json !== null) for (const o of flatten(json)) objects.push(o);
      continue;
    }
    for (const doc of parseYamlDocuments(text, file)) for (const o of flatten(doc)) objects.push(o);
  }
  return objects;
}

/** Plural resource name Kubernetes uses for a kind (`Ingress` → `ingresses`). */
export function pluralOf(kind: string): string {
  const k = kind.toLowerCase();
  if (k.endsWith('endpoints')) return k;
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

/** Objects sorted to watched resources as production would see them. */
export interface AssignedFixtures {
  readonly fixtures: Record<string, unknown[]>;
  /** Objects no watched resource takes (wrong type or filtered by its label selector). */
  readonly unmatched: readonly unknown[];
}

/**
 * Sorts objects into watched resources by apiVersion and kind, applies each resource's label
 * selector and strips `watchedResourcesIgnoreFields`, as the watch would before indexing.
 */
export function assignToWatched(
  objects: readonly unknown[],
  spec: DeepReadonly<TemplateConfigSpec>,
): AssignedFixtures {
  const fixtures: Record<string, unknown[]> = {};
  const unmatched: unknown[] = [];
  const ignore = spec.watchedResourcesIgnoreFields
    .map((p) => parseFieldPath(p))
    .filter((p) => p !== undefined);
  const watched = Object.entries(spec.watchedResources).map(([name, w]) => {
    const sel = w.labelSelector ? parseLabelSelector(w.labelSelector) : [];
    return { name, w, sel: 'error' in sel ? [] : sel };
  });
  for (const name of Object.keys(spec.watchedResources)) fixtures[name] = [];
  for (const o of objects) {
    const obj = o as {
      apiVersion?: unknown;
      kind?: unknown;
      metadata?: { labels?: Record<string, string> };
    };
    const hit = watched.find(
      ({ w, sel }) =>
        obj.apiVersion === w.apiVersion &&
        typeof obj.kind === 'string' &&
        pluralOf(obj.kind) === w.resources &&
        matchesLabelSelector(sel, obj.metadata?.labels),
    );
    if (!hit) unmatched.push(o);
    else fixtures[hit.name]?.push(ignore.reduce((acc, p) => withoutFieldPath(acc, p), o));
  }
  return { fixtures, unmatched };
}
