import { describe, expect, it } from 'vitest';
import { planSync } from './sync-plan.js';

const config = 'global\n  log stdout format raw local0\ndefaults\n  mode http\n';
const caps = { runtimeCerts: true, maxCertPayload: 16_384 };
const pod = (maps: Record<string, string>) => ({ config, maps, certs: {}, general: {} });
const want = (maps: Record<string, string>) => ({
  haproxyConfig: config,
  maps,
  files: {},
  sslCertificates: {},
  crtLists: {},
});

describe('planSync: maps', () => {
  it('leaves a map alone when the pod holds the same entries in other text (blank lines, comments)', () => {
    const plan = planSync(
      pod({ 'hosts.map': 'a.example.com be_a\nb.example.com be_b\n' }),
      want({ 'hosts.map': '\n# hosts\na.example.com be_a\n\nb.example.com be_b\n' }),
      caps,
    );
    expect(plan.writes).toEqual([]);
    expect(plan.maps).toEqual([]);
  });

  it('replaces a map whose entries differ, through the runtime API, and stores it', () => {
    const plan = planSync(
      pod({ 'hosts.map': 'a.example.com be_a\n' }),
      want({ 'hosts.map': 'a.example.com be_a\nb.example.com be_b\n' }),
      caps,
    );
    expect(plan.writes.map((w) => w.name)).toEqual(['hosts.map']);
    expect(plan.maps).toEqual([
      {
        name: 'hosts.map',
        entries: [
          { key: 'a.example.com', value: 'be_a' },
          { key: 'b.example.com', value: 'be_b' },
        ],
        // no converter reads it in order: one entry added, not the whole map
        edits: { add: [{ key: 'b.example.com', value: 'be_b' }], set: [], del: [] },
      },
    ]);
    expect(plan.reload).toEqual([]);
  });

  it('replaces a map_beg map whole when an added key is a prefix of another', () => {
    const beg = `${config}frontend f
  http-request set-var(txn.r) path,map_beg(/etc/haproxy/maps/prefix.map)
`;
    const plan = planSync(
      { ...pod({ 'prefix.map': '/a be_a\n' }), config: beg },
      { ...want({ 'prefix.map': '/a/b be_b\n/a be_a\n' }), haproxyConfig: beg },
      caps,
    );
    expect(plan.maps).toEqual([
      {
        name: 'prefix.map',
        entries: [
          { key: '/a/b', value: 'be_b' },
          { key: '/a', value: 'be_a' },
        ],
      },
    ]);
    const unrelated = planSync(
      { ...pod({ 'prefix.map': '/a be_a\n' }), config: beg },
      { ...want({ 'prefix.map': '/b be_b\n/a be_a\n' }), haproxyConfig: beg },
      caps,
    );
    expect(unrelated.maps[0]?.edits).toEqual({
      add: [{ key: '/b', value: 'be_b' }],
      set: [],
      del: [],
    });
  });

  it('keeps the order of entries significant (map_beg returns the first match)', () => {
    const plan = planSync(
      pod({ 'prefix.map': '/a be_a\n/a/b be_b\n' }),
      want({ 'prefix.map': '/a/b be_b\n/a be_a\n' }),
      caps,
    );
    expect(plan.writes.map((w) => w.name)).toEqual(['prefix.map']);
  });
});
