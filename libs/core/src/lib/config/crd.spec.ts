import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type AnySchema } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { templateConfigCrd, type CrdSchema } from './crd.js';
import { crdYaml } from './crd-yaml.js';

const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');

interface Crd {
  spec: {
    versions: { schema: { openAPIV3Schema: CrdSchema }; additionalPrinterColumns: unknown[] }[];
  };
}
const schemaOf = (crd: Crd) => crd.spec.versions[0]!.schema.openAPIV3Schema;

/** Every property of the schema tree, with its path. */
function* properties(s: CrdSchema, path = ''): Generator<[string, CrdSchema]> {
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    yield [`${path}.${k}`, v];
    yield* properties(v, `${path}.${k}`);
  }
  if (s.items) yield* properties(s.items, `${path}[]`);
  if (s.additionalProperties) yield* properties(s.additionalProperties, `${path}.*`);
}

/** The schema without Kubernetes extensions, for a plain JSON-Schema validator. */
const plain = (s: unknown): unknown =>
  JSON.parse(JSON.stringify(s), (k, v: unknown) => (k.startsWith('x-kubernetes') ? undefined : v));

describe('HAProxyTemplateConfig CRD', () => {
  it('the shipped file is what the config classes generate (run `npm run gen:crd` after a change)', () => {
    expect(read('helm/haptic/crds/haproxytemplateconfigs.yaml')).toBe(crdYaml());
  });

  it('documents every field with its one-line doc and has the status subresource', () => {
    const crd = templateConfigCrd() as Crd;
    const undocumented = [...properties(schemaOf(crd))].filter(([, s]) => !s.description);
    expect(undocumented.map(([p]) => p)).toEqual([]);
    expect(crd).toMatchObject({ spec: { versions: [{ subresources: { status: {} } }] } });
    const spec = schemaOf(crd).properties!['spec']!;
    expect(spec.properties!['watchedResources']!.description).toBe(
      'resource types to watch, by the name templates use (resources.<name>)',
    );
    expect(spec.required).toEqual([
      'credentialsSecretRef',
      'podSelector',
      'watchedResources',
      'haproxyConfig',
    ]);
  });

  it('accepts the fixture config and refuses wrong types and unknown enum values', () => {
    const validate = new Ajv({ strict: false }).compile(
      plain(schemaOf(templateConfigCrd() as Crd)) as AnySchema,
    );
    const good = parse(read('test/fixtures/config/minimal.yaml')) as { spec: object };
    expect(validate({ spec: good.spec }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ spec: { ...good.spec, dataplane: { maxParallel: 'many' } } })).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe('/spec/dataplane/maxParallel');
    const store = {
      ...good.spec,
      watchedResources: { x: { apiVersion: 'v1', resources: 'x', indexBy: ['a'], store: 'disk' } },
    };
    expect(validate({ spec: store })).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe('/spec/watchedResources/x/store');
  });
});
