import { parseFieldPath, readFieldPath, type FieldPath } from '#core';
import { InvalidIndexPathError } from '../index.errors.js';
import type { KubeObject } from './types.js';

/** Separator of key parts in a joined key; cannot occur in Kubernetes names or label values. */
const SEP = '\u0000';

/** Parses indexBy paths once; throws when one is not in the field-path dialect. */
export function compileIndexPaths(indexBy: readonly string[]): readonly FieldPath[] {
  return indexBy.map((text) => {
    const path = parseFieldPath(text);
    if (!path) throw new InvalidIndexPathError(text);
    return path;
  });
}

/** The key string of one value: strings as they are, missing values as the empty string. */
export function keyPart(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The index keys of an object, one per indexBy path. */
export function keysOf(object: KubeObject, paths: readonly FieldPath[]): readonly string[] {
  return paths.map((p) => keyPart(readFieldPath(object, p)));
}

/** Joins the first `n` keys into one map key. */
export function joinKeys(keys: readonly string[], n = keys.length): string {
  return keys.slice(0, n).join(SEP);
}

/** Stable reference of an object: namespace/name ('' namespace for cluster-scoped). */
export function refOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** Orders references by namespace, then name (code-unit order, locale-independent). */
export function compareRefs(
  a: { readonly namespace: string; readonly name: string },
  b: { readonly namespace: string; readonly name: string },
): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}
