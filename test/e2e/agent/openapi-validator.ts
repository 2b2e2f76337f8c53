import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import AjvModule, { type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { parse } from 'yaml';

/** The Dataplane API specifications shipped with the project (3.0 Swagger 2, 3.4 OpenAPI 3). */
export const SPEC_FILES = {
  '3.4': fileURLToPath(
    new URL('../../../docs/reference/dataplaneapi/v3.4/dataplane_spec.yaml', import.meta.url),
  ),
  '3.0': fileURLToPath(
    new URL('../../../docs/reference/dataplaneapi/v3.0/haproxy_spec.yaml', import.meta.url),
  ),
} as const;

type Json = Record<string, unknown>;

/** One observed response, checked against one specification. */
export interface Observation {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

export interface CheckResult {
  /** The path template of the operation, or undefined when the spec has no such path. */
  readonly template: string | undefined;
  /** The response key that applied: the status code, or `default`. */
  readonly responseKey: string | undefined;
  readonly errors: string[];
}

/**
 * Validates responses against a Dataplane API specification with Ajv (the specs' schemas use no
 * draft-04-only keyword; Ajv understands OpenAPI's `nullable`): path template
 * and operation, documented status (or `default`), content type and body schema.
 */
export class SpecValidator {
  private readonly spec: Json;
  private readonly oas3: boolean;
  private readonly ajv: AjvModule.default;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; re: RegExp }[];

  constructor(file: string) {
    this.spec = parse(readFileSync(file, 'utf8')) as Json;
    this.oas3 = typeof this.spec.openapi === 'string';
    // Both packages are CommonJS and also export themselves as `.default`.
    this.ajv = new AjvModule.default({ strict: false, allErrors: true, logger: false });
    ajvFormats.default(this.ajv);
    flattenClosedAllOf(this.spec, this.spec);
    this.ajv.addSchema(this.spec, 'spec');
    const base = this.oas3
      ? '/v3'
      : typeof this.spec.basePath === 'string'
        ? this.spec.basePath
        : '';
    this.templates = Object.keys(this.spec.paths as Json).map((t) => ({
      template: t,
      re: new RegExp(
        `^${base}${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
      ),
    }));
  }

  /** The operation object for a concrete path, if the spec documents it. */
  operation(method: string, path: string): { template: string; op: Json } | undefined {
    // Prefer the template with the fewest parameters (literal segments win).
    const hits = this.templates.filter((t) => t.re.test(path));
    hits.sort(
      (a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0),
    );
    for (const h of hits) {
      const op = (this.spec.paths as Record<string, Json>)[h.template]?.[method.toLowerCase()];
      if (op) return { template: h.template, op: op as Json };
    }
    return undefined;
  }

  /** Documented explicit status codes of an operation (for the coverage table). */
  statuses(template: string, method: string): string[] {
    const op = (this.spec.paths as Record<string, Record<string, Json>>)[template]?.[
      method.toLowerCase()
    ];
    return Object.keys((op?.responses as Json | undefined) ?? {}).filter((k) => k !== 'default');
  }

  check(o: Observation): CheckResult {
    const found = this.operation(o.method, o.path);
    if (!found) return { template: undefined, responseKey: undefined, errors: [] };
    const responses = found.op.responses as Record<string, Json>;
    const key =
      String(o.status) in responses
        ? String(o.status)
        : 'default' in responses
          ? 'default'
          : undefined;
    const errors: string[] = [];
    if (!key) {
      errors.push(`status ${o.status} is not documented and there is no default`);
      return { template: found.template, responseKey: key, errors };
    }
    let response = responses[key] ?? {};
    const ref = response.$ref;
    if (typeof ref === 'string') response = this.resolve(ref);
    const { schema, contentTypes } = this.bodySpec(found.op, response);
    const type = (o.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    if (!schema) {
      if (o.body.length > 0)
        errors.push(`body not documented for ${key} but got ${o.body.length} bytes`);
      return { template: found.template, responseKey: key, errors };
    }
    if (contentTypes.length > 0 && !contentTypes.includes(type)) {
      errors.push(`content-type ${type} not in [${contentTypes.join(', ')}]`);
    }
    let value: unknown = o.body;
    if (type === 'application/json') {
      try {
        value = JSON.parse(o.body);
      } catch {
        errors.push('body is not JSON');
        return { template: found.template, responseKey: key, errors };
      }
    }
    const validate = this.compile(`${found.template} ${o.method} ${key}`, schema);
    if (!validate(value)) {
      for (const e of validate.errors ?? [])
        errors.push(`${e.instancePath || '(body)'} ${e.message ?? ''}`);
    }
    return { template: found.template, responseKey: key, errors };
  }

  private bodySpec(op: Json, response: Json): { schema: Json | undefined; contentTypes: string[] } {
    if (this.oas3) {
      const content = (response.content ?? {}) as Record<string, Json>;
      const types = Object.keys(content);
      const first = types[0];
      return {
        schema: first ? (content[first]?.schema as Json | undefined) : undefined,
        contentTypes: types,
      };
    }
    const produces = (op.produces ?? this.spec.produces ?? []) as string[];
    return { schema: response.schema as Json | undefined, contentTypes: produces };
  }

  private resolve(ref: string): Json {
    let node: unknown = this.spec;
    for (const part of ref.replace(/^#\//, '').split('/')) node = (node as Json)[part];
    return node as Json;
  }

  private compile(key: string, schema: Json): ValidateFunction {
    const cached = this.cache.get(key);
    if (cached) return cached;
    // Swagger 2's `type: file` (a download) is a string body.
    const text = JSON.stringify(schema).replace(/"type":"file"/g, '"type":"string"');
    const rewritten = JSON.parse(text.replace(/"\$ref":"#\//g, '"$ref":"spec#/')) as Json;
    const fn = this.ajv.compile(rewritten);
    this.cache.set(key, fn);
    return fn;
  }
}

/**
 * The specs put `additionalProperties: false` beside `allOf` (go-swagger merges the parts into one
 * struct). Plain JSON Schema would then reject every property, so merge such `allOf` parts into
 * the parent first, as OpenAPI code generators do.
 */
function flattenClosedAllOf(node: unknown, root: Json): void {
  if (Array.isArray(node)) {
    for (const n of node) flattenClosedAllOf(n, root);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const o = node as Json;
  for (const v of Object.values(o)) flattenClosedAllOf(v, root);
  if (o.additionalProperties !== false || !Array.isArray(o.allOf)) return;
  const properties: Json = { ...((o.properties as Json | undefined) ?? {}) };
  const required = new Set<string>((o.required as string[] | undefined) ?? []);
  for (const part of o.allOf as Json[]) {
    let p = part;
    while (typeof p.$ref === 'string') {
      let target: unknown = root;
      for (const seg of p.$ref.replace(/^#\//, '').split('/')) target = (target as Json)[seg];
      p = target as Json;
    }
    Object.assign(properties, (p.properties as Json | undefined) ?? {});
    for (const r of (p.required as string[] | undefined) ?? []) required.add(r);
  }
  o.properties = properties;
  if (required.size) o.required = [...required];
  delete o.allOf;
}
