import { describe, expect, it } from 'vitest';
import { routeConditionOf, routeParentsMismatch, type RouteObject } from './route-parents.js';

const CTRL = 'example.org/gateway-controller';
const INFRA = 'gateway-conformance-infra';
const c = (type: string, status: string, reason: string, observedGeneration = 3) => ({
  type,
  status,
  reason,
  observedGeneration,
});
const ok = [c('Accepted', 'True', 'Accepted'), c('ResolvedRefs', 'True', 'ResolvedRefs')];
const want = {
  controller: CTRL,
  conditions: [
    routeConditionOf('Accepted', 'Accepted'),
    routeConditionOf('ResolvedRefs', 'ResolvedRefs'),
  ],
};
const entry = (name: string, conditions = ok, extra: Record<string, unknown> = {}) => ({
  parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name, ...extra },
  controllerName: CTRL,
  conditions,
});
const route = (
  parents: NonNullable<NonNullable<RouteObject['status']>['parents']>,
  refs: { name: string; namespace?: string; sectionName?: string }[] = [
    { name: 'same-namespace' },
    { name: 'all-namespaces' },
  ],
  namespace = INFRA,
): RouteObject => ({
  metadata: { namespace, name: 'r', generation: 3 },
  spec: { parentRefs: refs },
  status: { parents },
});

describe('route acceptance is judged per named parent Gateway, as upstream', () => {
  it('passes when every named Gateway has an entry with the expected type, status and reason', () => {
    expect(
      routeParentsMismatch(route([entry('same-namespace'), entry('all-namespaces')]), want),
    ).toBeUndefined();
  });

  it('fails on the wrong reason, the wrong status, or a missing condition', () => {
    const wrongReason = [c('Accepted', 'True', 'Pending'), ok[1]!];
    expect(
      routeParentsMismatch(
        route([entry('same-namespace'), entry('all-namespaces', wrongReason)]),
        want,
      ),
    ).toMatch(/parent gateway-conformance-infra\/all-namespaces: \[Accepted=True\/Pending/);
    const wrongStatus = [c('Accepted', 'False', 'Accepted'), ok[1]!];
    expect(
      routeParentsMismatch(
        route([entry('same-namespace', wrongStatus), entry('all-namespaces')]),
        want,
      ),
    ).toMatch(/same-namespace: \[Accepted=False\/Accepted/);
    expect(
      routeParentsMismatch(
        route([entry('same-namespace', [ok[0]!]), entry('all-namespaces')]),
        want,
      ),
    ).toMatch(/expected .*ResolvedRefs=True\/ResolvedRefs/);
  });

  it("fails when one named Gateway has no entry, or only another controller's", () => {
    expect(routeParentsMismatch(route([entry('same-namespace')]), want)).toMatch(
      /no status entry of .* for parent gateway-conformance-infra\/all-namespaces/,
    );
    const foreign = { ...entry('all-namespaces'), controllerName: 'other.org/ctrl' };
    expect(routeParentsMismatch(route([entry('same-namespace'), foreign]), want)).toMatch(
      /all-namespaces/,
    );
  });

  it('requires the namespace in the parentRef when the route lives elsewhere, and the sectionName named', () => {
    const refs = [{ name: 'same-namespace', namespace: INFRA }];
    const web = 'gateway-conformance-web-backend';
    expect(routeParentsMismatch(route([entry('same-namespace')], refs, web), want)).toMatch(
      /no status entry/,
    );
    expect(
      routeParentsMismatch(
        route([entry('same-namespace', ok, { namespace: INFRA })], refs, web),
        want,
      ),
    ).toBeUndefined();
    const section = [{ name: 'same-namespace', sectionName: 'http' }];
    expect(routeParentsMismatch(route([entry('same-namespace')], section), want)).toMatch(/#http/);
    expect(
      routeParentsMismatch(
        route([entry('same-namespace', ok, { sectionName: 'http' })], section),
        want,
      ),
    ).toBeUndefined();
  });

  it('fails while any entry is at an older generation', () => {
    const old = [c('Accepted', 'True', 'Accepted', 2), ok[1]!];
    expect(
      routeParentsMismatch(route([entry('same-namespace', old), entry('all-namespaces')]), want),
    ).toMatch(/Accepted@2/);
  });

  it("derives the status from the reason: True only for the type's own reason", () => {
    expect(routeConditionOf('Accepted', 'NotAllowedByListeners').status).toBe('False');
    expect(routeConditionOf('ResolvedRefs', 'ResolvedRefs').status).toBe('True');
  });
});
