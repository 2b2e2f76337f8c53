import { describe, expect, it } from 'vitest';
import { jsonPatch, mergePatch } from './patch.js';
import { strategicMerge } from './strategic-merge.js';

describe('patches', () => {
  it('merge patch merges objects, deletes nulls and replaces lists', () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({
      a: { c: 2, d: 3 },
      l: [3],
    });
  });

  it('JSON patch applies add/replace/remove/test and fails on a missing path', () => {
    const doc = { spec: { rules: [{ host: 'a' }] } };
    expect(
      jsonPatch(doc, [
        { op: 'replace', path: '/spec/rules/0/host', value: 'b' },
        { op: 'add', path: '/spec/rules/-', value: { host: 'c' } },
        { op: 'test', path: '/spec/rules/1/host', value: 'c' },
        { op: 'remove', path: '/spec/rules/0' },
      ]),
    ).toEqual({ spec: { rules: [{ host: 'c' }] } });
    expect(() => jsonPatch(doc, [{ op: 'replace', path: '/spec/nope/x', value: 1 }])).toThrow(
      /missing path/,
    );
    expect(doc.spec.rules[0]!.host).toBe('a');
  });

  it('strategic merge merges containers by name and service ports by port', () => {
    const dep = {
      spec: {
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:1' },
        ],
      },
    };
    expect(strategicMerge(dep, { spec: { containers: [{ name: 'b', image: 'b:2' }] } })).toEqual({
      spec: {
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:2' },
        ],
      },
    });
    expect(
      strategicMerge(dep, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } }),
    ).toEqual({ spec: { containers: [{ name: 'b', image: 'b:1' }] } });
    const svc = { spec: { ports: [{ port: 80, name: 'http' }] } };
    expect(
      strategicMerge(svc, {
        spec: {
          ports: [{ port: 443, name: 'https' }],
          '$setElementOrder/ports': [{ port: 443 }, { port: 80 }],
        },
      }),
    ).toEqual({
      spec: {
        ports: [
          { port: 443, name: 'https' },
          { port: 80, name: 'http' },
        ],
      },
    });
  });

  it('strategic merge replaces lists without a merge key and honours $retainKeys and $deleteFromPrimitiveList', () => {
    expect(
      strategicMerge({ spec: { rules: [{ host: 'a' }] } }, { spec: { rules: [{ host: 'b' }] } }),
    ).toEqual({ spec: { rules: [{ host: 'b' }] } });
    expect(strategicMerge({ s: { a: 1, b: 2 } }, { s: { $retainKeys: ['a'], a: 3 } })).toEqual({
      s: { a: 3 },
    });
    expect(
      strategicMerge(
        { metadata: { finalizers: ['x', 'y'] } },
        { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } },
      ),
    ).toEqual({ metadata: { finalizers: ['y'] } });
  });
});
