import { describe, expect, it } from 'vitest';
import { heapBreakdown } from './heap-breakdown.js';

// A hand-made snapshot in V8's format: root → ResourceIndex → {object, shared string};
// root → FragmentCache → {string, shared string}; root → a module source string.
const fields = ['type', 'name', 'id', 'self_size', 'edge_count'];
const nodeTypes = ['hidden', 'object', 'string', 'synthetic'];
const edgeTypes = ['property', 'element', 'weak'];
const strings = ['', 'ResourceIndex', 'FragmentCache', 'Object', 'text', 'a', 'b', 'c', 'source'];
// [type, name, id, size, edges]
const nodeRows = [
  [3, 0, 1, 0, 3], // 0 root
  [1, 1, 2, 100, 2], // 1 ResourceIndex
  [1, 2, 3, 50, 3], // 2 FragmentCache
  [1, 3, 4, 30, 0], // 3 an object of the index
  [2, 4, 5, 1000, 0], // 4 string shared by both
  [2, 4, 6, 400, 0], // 5 string of the cache
  [2, 8, 7, 7000, 0], // 6 module source
];
const NF = fields.length;
// [type, name_or_index, to_node (index × NF)]
const edgeRows = [
  [0, 5, 1 * NF],
  [0, 6, 2 * NF],
  [0, 8, 6 * NF],
  [0, 5, 3 * NF],
  [0, 6, 4 * NF],
  [0, 5, 5 * NF],
  [0, 7, 4 * NF],
  [2, 6, 3 * NF], // weak: does not make the index's object the cache's
];

describe('heapBreakdown', () => {
  it('counts each node once, for the first library that reaches it, and the rest apart', () => {
    const shares = heapBreakdown({
      snapshot: {
        meta: {
          node_fields: fields,
          node_types: [nodeTypes],
          edge_fields: ['type', 'name_or_index', 'to_node'],
          edge_types: [edgeTypes],
        },
      },
      nodes: nodeRows.flat(),
      edges: edgeRows.flat(),
      strings,
    });
    const by = Object.fromEntries(shares.map((s) => [s.owner, s]));
    expect(by['index']!.bytes).toBe(100 + 30 + 1000);
    expect(by['index']!.stringBytes).toBe(1000);
    expect(by['render: fragment cache']!.bytes).toBe(50 + 400);
    expect(by['index']!.instances).toEqual({ ResourceIndex: 1 });
    expect(shares.at(-1)!.bytes).toBe(7000);
    expect(shares.reduce((n, s) => n + s.bytes, 0)).toBe(8580);
  });
});
