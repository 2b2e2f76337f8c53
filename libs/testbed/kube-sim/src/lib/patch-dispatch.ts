import { jsonPatch, mergePatch } from './patch.js';
import type { ResourceType } from './resource-type.js';
import { errors } from './status.js';
import { strategicMerge } from './strategic-merge.js';
import type { KubeObject } from './types.js';

const customAccepted = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];
const builtinAccepted = [...customAccepted, 'application/strategic-merge-patch+json'];

/** Applies a PATCH body of the given content type to the current object. */
export function applyPatch(
  t: ResourceType,
  current: KubeObject,
  body: unknown,
  contentType: string,
): unknown {
  const ct = contentType.split(';')[0]!.trim();
  switch (ct) {
    case 'application/json-patch+json':
      return jsonPatch(current, body);
    case 'application/merge-patch+json':
      return mergePatch(current, body);
    case 'application/strategic-merge-patch+json':
      if (!t.strategicMerge) throw errors.unsupportedMediaType(ct, customAccepted);
      return strategicMerge(current, body);
    default:
      throw errors.unsupportedMediaType(ct, t.strategicMerge ? builtinAccepted : customAccepted);
  }
}
