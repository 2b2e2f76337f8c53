import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { InputUnreadableError } from './errors.js';
import { parseYamlDocuments } from './manifest-yaml.js';

/** The value of `v:` as the bulk parser reads it. */
const fast = (scalar: string): unknown =>
  (parseYamlDocuments(`v: ${scalar}\n`, 't.yaml')[0] as { v: unknown }).v;
/** The value of `v:` as the `yaml` package (the previous manifest parser) reads it. */
const previous = (scalar: string): unknown => (parse(`v: ${scalar}\n`) as { v: unknown }).v;

describe('parseYamlDocuments', () => {
  it('reads every document of a multi-document text, leaving out empty ones', () => {
    const text = [
      'apiVersion: v1\nkind: Service\nmetadata: { name: a }',
      '',
      '# only a comment',
      'kind: List\nitems: [{ kind: ConfigMap }]',
      '{"kind": "Secret", "data": {"k": "dg=="}}',
    ].join('\n---\n');
    expect(parseYamlDocuments(text, 'x.yaml')).toEqual([
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' } },
      { kind: 'List', items: [{ kind: 'ConfigMap' }] },
      { kind: 'Secret', data: { k: 'dg==' } },
    ]);
    expect(parseYamlDocuments('', 'empty.yaml')).toEqual([]);
    expect(parseYamlDocuments('---\n---\n', 'empty.yaml')).toEqual([]);
  });

  it('names the file, the document number and the line of a broken document', () => {
    const text = 'kind: A\n---\nkind: B\n---\nkind: C\nmetadata: [1,\n';
    expect(() => parseYamlDocuments(text, 'dump.yaml')).toThrow(InputUnreadableError);
    expect(() => parseYamlDocuments(text, 'dump.yaml')).toThrow(
      /^dump\.yaml: document 3: not valid YAML: .* \(line \d+, column \d+\)$/,
    );
    const marked = '# dump\n---\nkind: A\n---\nkind: [\n  x: y\n---\nkind: C\n';
    expect(() => parseYamlDocuments(marked, 'dump.yaml')).toThrow(/^dump\.yaml: document 2: /);
    expect(() => parseYamlDocuments('a: 1\na: 2\n', 'dup.yaml')).toThrow(
      /^dup\.yaml: document 1: not valid YAML: duplicated mapping key \(line 2, column 1\)$/,
    );
  });

  it('reads scalars as the YAML 1.2 core schema, as the previous parser did', () => {
    // YAML 1.1 booleans and sexagesimals, leading-zero octal, timestamps, merge keys
    const same = ['yes', 'no', 'on', 'off', 'y', 'n', 'True', 'FALSE', 'tRue', '~', 'Null'];
    same.push('0755', '0o755', '0x1F', '1_000', '1e3', '.5', '+12.5', '-.Inf', '.NaN', '010');
    same.push('2024-01-01', '2024-01-01T00:00:00Z', '1:20:30', '"0755"', "'on'", '!!str 1');
    for (const s of same) expect([s, fast(s)]).toEqual([s, previous(s)]);
    expect([fast('on'), fast('yes'), fast('0755'), fast('0o755'), fast('1e3')]).toEqual([
      'on',
      'yes',
      755,
      0o755,
      1000,
    ]);
    expect(fast('2024-01-01T00:00:00Z')).toBe('2024-01-01T00:00:00Z');
    expect(parseYamlDocuments('<<: { a: 1 }\n', 'm.yaml')).toEqual([{ '<<': { a: 1 } }]);
  });

  it('differs from the previous parser only where the unit test pins it', () => {
    // YAML 1.1 binary integers (as Kubernetes' own YAML reader takes them)
    expect([fast('0b101'), previous('0b101')]).toEqual([5, '0b101']);
    // a float beyond double range stays a string instead of becoming Infinity
    expect([fast('1e400'), previous('1e400')]).toEqual(['1e400', Infinity]);
    // tags outside the core schema are refused, not turned into objects
    expect(() => fast('!!binary aGk=')).toThrow(/t\.yaml: document 1: .*unknown tag/);
    expect(() => fast('!!set { a }')).toThrow(/unknown tag/);
  });
});
