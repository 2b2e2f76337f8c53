import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { parseFieldPath, withoutFieldPath, type FieldPath } from '#core';
import type { KubeObject } from './types.js';

/**
 * Fields no render may depend on: every write bumps the resourceVersion, and managedFields only
 * records who wrote. A change of these alone changes nothing a template should read.
 */
const ALWAYS_QUIET = ['metadata.resourceVersion', 'metadata.managedFields'];

/** Parses the quiet paths of a store (the fixed ones plus the watched resource's own). */
export function compileQuietPaths(extra: readonly string[] = []): readonly FieldPath[] {
  return [...ALWAYS_QUIET, ...extra].map((text) => {
    const path = parseFieldPath(text);
    if (!path) throw new Error(`quiet path "${text}" is not a valid field path`);
    return path;
  });
}

/** The object without its quiet fields: what a change must touch to trigger a render. */
function material(object: unknown, quiet: readonly FieldPath[]): unknown {
  return quiet.reduce((o, p) => withoutFieldPath(o, p), object);
}

/** True when `a` and `b` differ only in quiet fields. */
export function sameMaterial(a: unknown, b: unknown, quiet: readonly FieldPath[]): boolean {
  return isDeepStrictEqual(material(a, quiet), material(b, quiet));
}

/** A digest of the object's material fields (key order does not matter), for on-demand stores. */
export function materialDigest(object: KubeObject, quiet: readonly FieldPath[]): string {
  return createHash('sha1')
    .update(stableJson(material(object, quiet)))
    .digest('base64');
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}
