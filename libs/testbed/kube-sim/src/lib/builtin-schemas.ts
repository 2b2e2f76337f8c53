import generated from './builtin-schemas.json' with { type: 'json' };
import type { StructuralSchema } from './schema.js';

interface Generated {
  kinds: Record<string, string>;
  types: Record<string, Record<string, string>>;
}

const data = generated as Generated;
const cache = new Map<string, StructuralSchema>();

/** Converts a client-node model type name ("Array<V1Container>", "IntOrString", ...) to a schema. */
function fromRef(ref: string): StructuralSchema {
  const arr = /^Array<(.+)>$/.exec(ref);
  if (arr) return { type: 'array', items: fromRef(arr[1]!) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(ref);
  if (map) return { type: 'object', additionalProperties: fromRef(map[1]!) };
  switch (ref) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: ref };
    case 'IntOrString':
      return { 'x-kubernetes-int-or-string': true };
    case 'any':
    case 'object':
      return { 'x-kubernetes-preserve-unknown-fields': true };
    default:
      return model(ref);
  }
}

/** The schema of one model type; recursive types (JSONSchemaProps) become cyclic objects. */
function model(name: string): StructuralSchema {
  const hit = cache.get(name);
  if (hit) return hit;
  const fields = data.types[name];
  if (!fields) return { 'x-kubernetes-preserve-unknown-fields': true };
  const properties: Record<string, StructuralSchema> = {};
  const schema: StructuralSchema = { type: 'object', properties };
  cache.set(name, schema);
  for (const [field, ref] of Object.entries(fields)) properties[field] = fromRef(ref);
  return schema;
}

/**
 * The field layout of a built-in kind, generated from @kubernetes/client-node's models (which are
 * generated from Kubernetes' OpenAPI): used to find unknown fields and wrong types as a real
 * server's strict decoder does. Not for serialising (it may be cyclic).
 */
export function builtinSchema(kind: string): StructuralSchema | undefined {
  const name = data.kinds[kind];
  return name ? model(name) : undefined;
}
