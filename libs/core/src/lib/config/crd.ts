import { getMetadataStorage } from 'class-validator';
import { fieldsOf, type FieldMeta } from './decorators.js';
import { TemplateConfigSpec, TemplateConfigStatus } from './spec.js';

type Class = new () => object;

/** An OpenAPI v3 schema as a CustomResourceDefinition holds it (the subset haptic emits). */
export interface CrdSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, CrdSchema>;
  additionalProperties?: CrdSchema;
  items?: CrdSchema;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minItems?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

interface Constraint {
  readonly propertyName: string;
  readonly type: string;
  readonly name?: string;
  readonly constraints?: unknown[];
  readonly each?: boolean;
}

function constraintsOf(type: Class): Constraint[] {
  const storage = getMetadataStorage() as unknown as {
    getTargetValidationMetadatas(t: Class, s: string, a: boolean, g: boolean): Constraint[];
  };
  return storage.getTargetValidationMetadatas(type, '', true, false);
}

const STRINGS = new Set([
  'isString',
  'matches',
  'isDurationText',
  'isFieldPath',
  'isLabelSelector',
]);

/** The schema of a plain value field, from its class-validator constraints. */
function valueSchema(cs: readonly Constraint[]): CrdSchema {
  const name = (n: string) => cs.find((c) => c.name === n);
  const each = cs.some((c) => c.each) || name('isArray') !== undefined;
  let leaf: CrdSchema;
  const isIn = name('isIn');
  if (isIn) leaf = { type: 'string', enum: [...(isIn.constraints?.[0] as unknown[])] };
  else if (cs.some((c) => c.name !== undefined && STRINGS.has(c.name))) leaf = { type: 'string' };
  else if (name('isInt')) leaf = { type: 'integer' };
  else if (name('isBoolean')) leaf = { type: 'boolean' };
  else if (name('isLabelMap')) leaf = { type: 'object', additionalProperties: { type: 'string' } };
  else leaf = { 'x-kubernetes-preserve-unknown-fields': true };
  if (name('isPlainObject'))
    leaf = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const min = name('min')?.constraints?.[0];
  const max = name('max')?.constraints?.[0];
  if (typeof min === 'number') leaf.minimum = min;
  if (typeof max === 'number') leaf.maximum = max;
  if (!each) return leaf;
  const list: CrdSchema = { type: 'array', items: leaf.type ? leaf : { type: 'string' } };
  const minItems = name('arrayMinSize')?.constraints?.[0];
  if (typeof minItems === 'number') list.minItems = minItems;
  return list;
}

function fieldSchema(field: FieldMeta, cs: readonly Constraint[]): CrdSchema {
  const { shape } = field;
  const schema: CrdSchema =
    shape.kind === 'object'
      ? classSchema(shape.type())
      : shape.kind === 'record'
        ? { type: 'object', additionalProperties: classSchema(shape.type()) }
        : shape.kind === 'array'
          ? { type: 'array', items: classSchema(shape.type()) }
          : valueSchema(cs);
  return { description: field.doc, ...schema };
}

/** The schema of a config class: its documented fields, required where `@IsDefined` holds. */
export function classSchema(type: Class): CrdSchema {
  const constraints = constraintsOf(type);
  const properties: Record<string, CrdSchema> = {};
  const required: string[] = [];
  for (const field of fieldsOf(type)) {
    const cs = constraints.filter((c) => c.propertyName === field.name);
    properties[field.name] = fieldSchema(field, cs);
    const conditional = cs.some((c) => c.type === 'conditionalValidation');
    if (cs.some((c) => c.type === 'isDefined') && !conditional) required.push(field.name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

const column = (name: string, type: string, jsonPath: string, description: string) => ({
  name,
  type,
  jsonPath,
  description,
});

/** The HAProxyTemplateConfig CustomResourceDefinition, generated from the config classes. */
export function templateConfigCrd(): object {
  const condition = (t: string) => `.status.conditions[?(@.type=="${t}")].status`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'haproxytemplateconfigs.haproxy-haptic.org' },
    spec: {
      group: 'haproxy-haptic.org',
      scope: 'Namespaced',
      names: {
        plural: 'haproxytemplateconfigs',
        singular: 'haproxytemplateconfig',
        kind: 'HAProxyTemplateConfig',
        listKind: 'HAProxyTemplateConfigList',
        shortNames: ['haptpl', 'htplcfg'],
      },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            column('Valid', 'string', condition('Valid'), 'the configuration compiles and renders'),
            column('Deployed', 'string', condition('Deployed'), 'every HAProxy pod has it'),
            column('Ready', 'string', condition('Ready'), 'haptic is serving this configuration'),
            column('Hash', 'string', '.status.lastRenderHash', 'last rendered configuration'),
            column('Age', 'date', '.metadata.creationTimestamp', 'age'),
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description:
                'A template-driven HAProxy configuration that haptic renders and deploys.',
              properties: {
                spec: {
                  description: 'Everything the controller is told to do.',
                  ...classSchema(TemplateConfigSpec),
                },
                status: {
                  description: 'What the leader reports back.',
                  ...classSchema(TemplateConfigStatus),
                },
              },
              required: ['spec'],
            },
          },
        },
      ],
    },
  };
}
