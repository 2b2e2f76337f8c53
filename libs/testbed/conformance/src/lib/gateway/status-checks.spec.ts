import { describe, expect, it } from 'vitest';
import { hasCondition, listenersMismatch, staleConditions } from './status-checks.js';

const c = (type: string, status: string, reason: string, observedGeneration = 2) => ({
  type,
  status,
  reason,
  observedGeneration,
});
const http = { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' };

describe('status checks as the upstream helpers make them', () => {
  it('a status counts only when every condition is at the generation', () => {
    const o = { metadata: { generation: 2 }, status: { conditions: [c('Accepted', 'True', 'A')] } };
    expect(staleConditions(o)).toBeUndefined();
    const old = {
      ...o,
      status: { conditions: [c('Accepted', 'True', 'A'), c('X', 'True', 'B', 1)] },
    };
    expect(staleConditions(old)).toMatch(/X@1/);
  });
  it('a condition is found by type and status, and by reason only when one is asked', () => {
    const list = [c('Accepted', 'False', 'NoMatchingParent')];
    expect(hasCondition(list, { type: 'Accepted', status: 'False' })).toBe(true);
    expect(hasCondition(list, { type: 'Accepted', status: 'False', reason: 'Other' })).toBe(false);
    expect(hasCondition(list, { type: 'Accepted', status: 'True' })).toBe(false);
  });
  it('listeners must match in count, kinds, attachedRoutes and conditions', () => {
    const got = [
      {
        name: 'http',
        attachedRoutes: 2,
        supportedKinds: [http],
        conditions: [c('Accepted', 'True', 'Accepted'), c('ResolvedRefs', 'True', 'ResolvedRefs')],
      },
    ];
    const want = {
      name: 'http',
      kinds: ['HTTPRoute'],
      attachedRoutes: 2,
      conditions: [{ type: 'ResolvedRefs', status: 'True' as const }],
    };
    expect(listenersMismatch([want], got)).toBeUndefined();
    expect(listenersMismatch([{ ...want, attachedRoutes: 1 }], got)).toMatch(/attachedRoutes 2/);
    expect(listenersMismatch([want, { ...want, name: 'b' }], got)).toMatch(/1 listeners/);
    expect(listenersMismatch([{ ...want, kinds: [] }], got)).toMatch(/expected none/);
    expect(listenersMismatch([{ ...want, kinds: ['GRPCRoute'] }], got)).toMatch(/GRPCRoute/);
    const falseRefs = [{ type: 'ResolvedRefs', status: 'False' as const }];
    expect(listenersMismatch([{ ...want, conditions: falseRefs }], got)).toMatch(/no ResolvedRefs/);
  });
});
