import { describe, expect, it } from 'vitest';
import { ingressStatusWrites } from './ingress-status.js';

const ing = (name: string, ips: string[] = []) => ({
  metadata: { namespace: 'ns', name },
  status: { loadBalancer: { ingress: ips.map((ip) => ({ ip })) } },
});
const ours = [{ ip: '192.0.2.1' }];

describe('Ingress status writes', () => {
  it('writes served Ingresses that differ, and nothing that already says it', () => {
    const a = ing('a');
    const b = ing('b', ['192.0.2.1']);
    expect(ingressStatusWrites([a, b], [a, b], ours, new Set())).toEqual([
      { namespace: 'ns', name: 'a', entries: ours },
    ]);
  });

  it('clears an Ingress no longer served that we published to, never one of another controller', () => {
    const was = ing('was', ['192.0.2.1']);
    const mine = ing('mine', ['198.51.100.1']);
    const theirs = ing('theirs', ['198.51.100.2']);
    const writes = ingressStatusWrites([], [was, mine, theirs], ours, new Set(['ns/mine']));
    expect(writes).toEqual([
      { namespace: 'ns', name: 'was', entries: [] },
      { namespace: 'ns', name: 'mine', entries: [] },
    ]);
  });
});
