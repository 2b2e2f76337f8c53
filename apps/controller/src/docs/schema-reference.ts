/** A JSON Schema (the subset the CRD and the chart's values.schema.json use). */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
}

/** One documented field: where it is, what it takes, what it defaults to. */
export interface FieldRow {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly constraints: readonly string[];
  readonly description: string;
}

function typeOf(s: JsonSchema): string {
  if (s['x-kubernetes-int-or-string']) return 'integer or string';
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(' or ');
  const t = Array.isArray(s.type) ? s.type.join(' or ') : (s.type as string | undefined);
  if (t === 'array') return `array of ${s.items ? typeOf(s.items) : 'any'}`;
  if (!t && s['x-kubernetes-preserve-unknown-fields']) return 'any';
  if (!t && s.properties) return 'object';
  if (t === 'object' && !s.properties && typeof s.additionalProperties === 'object')
    return `map of ${typeOf(s.additionalProperties)}`;
  return t ?? 'any';
}

function constraintsOf(s: JsonSchema): string[] {
  const c: string[] = [];
  if (s.enum) c.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (s.minimum !== undefined) c.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) c.push(`≤ ${s.maximum}`);
  if (s.minLength !== undefined) c.push(`length ≥ ${s.minLength}`);
  if (s.maxLength !== undefined) c.push(`length ≤ ${s.maxLength}`);
  if (s.minItems !== undefined) c.push(`at least ${s.minItems} item(s)`);
  if (s.pattern !== undefined) c.push(`matches \`${s.pattern}\``);
  if (s.format !== undefined) c.push(`format ${s.format}`);
  return c;
}

/** Every field of `schema`, depth first, in declaration order. */
export function schemaRows(schema: JsonSchema, prefix = '', required = false): FieldRow[] {
  const rows: FieldRow[] = [];
  if (prefix) {
    rows.push({
      path: prefix,
      type: typeOf(schema),
      required,
      ...(schema.default !== undefined ? { default: schema.default } : {}),
      constraints: constraintsOf(schema),
      description: schema.description ?? '',
    });
  }
  const needed = new Set(schema.required ?? []);
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    rows.push(...schemaRows(child, prefix ? `${prefix}.${name}` : name, needed.has(name)));
  if (schema.items?.properties) rows.push(...schemaRows(schema.items, `${prefix}[]`).slice(1));
  if (typeof schema.additionalProperties === 'object' && schema.additionalProperties.properties)
    rows.push(...schemaRows(schema.additionalProperties, `${prefix}.<name>`).slice(1));
  return rows;
}

/** A Markdown table cell: one line, pipes escaped. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim();
}

/** The Markdown table of `rows`. */
export function fieldTable(rows: readonly FieldRow[]): string {
  const lines = [
    '| field | type | required | default | constraints | description |',
    '| ----- | ---- | -------- | ------- | ----------- | ----------- |',
  ];
  for (const r of rows) {
    const dflt = r.default === undefined ? '' : `\`${cell(JSON.stringify(r.default))}\``;
    lines.push(
      `| \`${r.path}\` | ${cell(r.type)} | ${r.required ? 'yes' : ''} | ${dflt} | ${cell(
        r.constraints.join('; '),
      )} | ${cell(r.description)} |`,
    );
  }
  return lines.join('\n');
}
