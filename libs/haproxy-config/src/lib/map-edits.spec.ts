import { describe, expect, it } from 'vitest';
import { mapEdits, mapMatchKinds, MAX_MAP_EDITS } from './map-edits.js';
import { parseMapFile } from './map-file.js';

const map = (text: string) => parseMapFile(text);
const STR = new Set(['str']);
const BEG = new Set(['beg']);

describe('mapMatchKinds', () => {
  const config = [
    'frontend http',
    '  http-request set-var(txn.a) req.hdr(host),map(/etc/haproxy/maps/exact.map)',
    '  http-request set-var(txn.b) path,map_beg("/etc/haproxy/maps/prefix.map",none)',
    '  http-request set-var(txn.c) path,map_reg(/etc/haproxy/maps/regex.map)',
    '  acl listed src -f /etc/haproxy/maps/listed.map',
    '  http-request set-var(txn.d) path,map_str(/etc/haproxy/maps/both.map),map_beg(/etc/haproxy/maps/both.map)',
  ].join('\n');

  it('names the match kind of every converter that reads a map, and any other mention as other', () => {
    expect([...mapMatchKinds(config, 'exact.map')]).toEqual(['str']);
    expect([...mapMatchKinds(config, 'prefix.map')]).toEqual(['beg']);
    expect([...mapMatchKinds(config, 'regex.map')]).toEqual(['reg']);
    expect([...mapMatchKinds(config, 'listed.map')]).toEqual(['other']);
    expect([...mapMatchKinds(config, 'both.map')].sort()).toEqual(['beg', 'str']);
    expect([...mapMatchKinds(config, 'unused.map')]).toEqual([]);
  });

  it('does not take a map for another whose name ends the same', () => {
    const c = 'frontend f\n  http-request set-var(txn.a) path,map_beg(/m/inexact.map)\n';
    expect([...mapMatchKinds(c, 'exact.map')]).toEqual(['other']);
  });
});

describe('mapEdits', () => {
  it('adds, sets in place and deletes one entry each on an exact map', () => {
    const before = map('b.example be_b\na.example be_a\nc.example be_c\n');
    const after = map('a.example be_x\nb.example be_b\nn.example be_n\n');
    expect(mapEdits(before, after, STR)).toEqual({
      del: ['c.example'],
      set: [{ key: 'a.example', value: 'be_x' }],
      add: [{ key: 'n.example', value: 'be_n' }],
    });
  });

  it('adds to a prefix map when no other key is a prefix of the new one nor it of another', () => {
    const before = map('a.example/api be_api\na.example/ be_a\n');
    const unrelated = map('a.example/api be_api\nb.example/ be_b\na.example/ be_a\n');
    expect(mapEdits(before, unrelated, BEG)?.add).toEqual([{ key: 'b.example/', value: 'be_b' }]);
    // a.example/api/v2 sorts before a.example/api: appended last, a.example/api would win
    const nested = map('a.example/api/v2 be_v2\na.example/api be_api\na.example/ be_a\n');
    expect(mapEdits(before, nested, BEG)).toBeUndefined();
  });

  it('adds to an order-sensitive map only when the new rows are the last ones', () => {
    const before = map('^/a be_a\n^/b be_b\n');
    const kinds = new Set(['reg']);
    expect(mapEdits(before, map('^/a be_a\n^/b be_b\n^/c be_c\n'), kinds)?.add).toHaveLength(1);
    expect(mapEdits(before, map('^/c be_c\n^/a be_a\n^/b be_b\n'), kinds)).toBeUndefined();
    expect(mapEdits(before, map('^/a be_a\n^/c be_c\n^/b be_b\n'), new Set(['other']))).toBe(
      undefined,
    );
  });

  it('deletes and sets in place on any map: the other rows keep their order', () => {
    const before = map('^/a be_a\n^/b be_b\n^/c be_c\n');
    expect(mapEdits(before, map('^/a be_a\n^/c be_x\n'), new Set(['reg']))).toEqual({
      del: ['^/b'],
      set: [{ key: '^/c', value: 'be_x' }],
      add: [],
    });
  });

  it('replaces the whole map for a key on two rows, an empty value to set, or many changes', () => {
    expect(mapEdits(map('a x\na y\n'), map('a x\n'), STR)).toBeUndefined();
    expect(mapEdits(map('a x\n'), map('a x\na y\n'), STR)).toBeUndefined();
    expect(mapEdits(map('a x\n'), map('a\n'), STR)).toBeUndefined();
    const many = Array.from({ length: MAX_MAP_EDITS + 1 }, (_, i) => `k${i} v`).join('\n');
    expect(mapEdits([], map(many), STR)).toBeUndefined();
    expect(mapEdits([], map('k v\n'), STR)?.add).toHaveLength(1);
  });
});
