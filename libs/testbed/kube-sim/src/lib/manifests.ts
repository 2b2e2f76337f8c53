import { parseYamlDocuments } from '#core';
import { isObject, type KubeObject } from './types.js';

/** Parses multi-document YAML (or JSON) into objects; `List` kinds are flattened. */
export function parseManifests(text: string, source = 'manifest'): KubeObject[] {
  const out: KubeObject[] = [];
  for (const v of parseYamlDocuments(text, source)) {
    if (!isObject(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') {
      throw new Error(`${source}: every document needs apiVersion and kind`);
    }
    if (v.kind.endsWith('List') && Array.isArray(v.items)) out.push(...(v.items as KubeObject[]));
    else out.push({ ...v, metadata: isObject(v.metadata) ? v.metadata : {} } as KubeObject);
  }
  return out;
}
