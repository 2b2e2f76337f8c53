import { describe, expect, it } from 'vitest';
import { fieldPathProblem, parseFieldPath, readFieldPath, withoutFieldPath } from './field-path.js';
import { durationProblem, tryParseDuration } from './duration.js';
import { matchesLabelSelector, parseLabelSelector } from './label-selector.js';

describe('field paths', () => {
  it.each([
    ['metadata.namespace', ['metadata', 'namespace']],
    [
      "metadata.labels['kubernetes.io/service-name']",
      ['metadata', 'labels', 'kubernetes.io/service-name'],
    ],
    ['metadata.annotations["a.b/c"]', ['metadata', 'annotations', 'a.b/c']],
    ['spec.ports[0].port', ['spec', 'ports', 0, 'port']],
  ])('parses %s', (text, segments) => expect(parseFieldPath(text)).toEqual(segments));

  it.each([
    '',
    '$.metadata.name',
    '.metadata',
    'metadata..name',
    "metadata.labels['']",
    'metadata.labels[app]',
  ])('refuses %j', (text) => expect(fieldPathProblem(text)).toMatch(/not a valid path/));

  it('reads and removes values', () => {
    const obj = { metadata: { name: 'a', managedFields: [1], labels: { 'x/y': 'z' } } };
    expect(readFieldPath(obj, parseFieldPath("metadata.labels['x/y']")!)).toBe('z');
    const stripped = withoutFieldPath(obj, parseFieldPath('metadata.managedFields')!);
    expect(stripped).toEqual({ metadata: { name: 'a', labels: { 'x/y': 'z' } } });
    expect(obj.metadata.managedFields).toEqual([1]);
  });

  it('strips inside arrays and keeps the order of the other keys', () => {
    const obj = { spec: { ports: [{ a: 1, secret: 2, b: 3 }] }, z: 1 };
    const stripped = withoutFieldPath(obj, parseFieldPath('spec.ports[0].secret')!);
    expect(stripped).toEqual({ spec: { ports: [{ a: 1, b: 3 }] }, z: 1 });
    expect(Object.keys(stripped.spec.ports[0]!)).toEqual(['a', 'b']);
    expect(withoutFieldPath(obj, parseFieldPath('absent.x')!)).toBe(obj);
    expect(obj.spec.ports[0]).toEqual({ a: 1, secret: 2, b: 3 });
  });
});

describe('durations', () => {
  it.each([
    ['100ms', 100],
    ['2s', 2000],
    ['1m', 60000],
    ['1m30s', 90000],
    ['1.5s', 1500],
  ])('%s is %d ms', (text, ms) => expect(tryParseDuration(text)).toBe(ms));
  it.each(['fast', '10', '', '5 s', '-1s'])('refuses %j', (text) =>
    expect(durationProblem(text)).toBeDefined(),
  );
});

describe('label selectors', () => {
  const match = (sel: string, labels: Record<string, string>) => {
    const parsed = parseLabelSelector(sel);
    if ('error' in parsed) throw new Error(parsed.error);
    return matchesLabelSelector(parsed, labels);
  };
  it('supports the full syntax', () => {
    const labels = { app: 'web', tier: 'front', 'example.com/team': 'a' };
    expect(match('app=web', labels)).toBe(true);
    expect(match('app==web,tier!=back', labels)).toBe(true);
    expect(match('tier in (front, back)', labels)).toBe(true);
    expect(match('tier notin (front)', labels)).toBe(false);
    expect(match('example.com/team', labels)).toBe(true);
    expect(match('!canary', labels)).toBe(true);
    expect(match('!app', labels)).toBe(false);
    expect(match('', labels)).toBe(true);
  });
  it.each(['a in (b', 'a=b,', 'in (x)', 'a=b c'])('refuses %j', (sel) =>
    expect('error' in parseLabelSelector(sel)).toBe(true),
  );
});
