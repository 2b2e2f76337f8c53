import { describe, expect, it } from 'vitest';
import { quietPathsOf } from './quiet-paths.js';

describe('quietPathsOf', () => {
  it('names the status haptic writes: Ingresses and the Gateway API kinds', () => {
    expect(quietPathsOf('networking.k8s.io/v1', 'ingresses')).toEqual(['status']);
    expect(quietPathsOf('gateway.networking.k8s.io/v1', 'httproutes')).toEqual(['status']);
    expect(quietPathsOf('gateway.networking.k8s.io/v1beta1', 'gateways')).toEqual(['status']);
  });

  it('leaves the status of other kinds loud: templates may read it', () => {
    expect(quietPathsOf('v1', 'pods')).toEqual([]);
    expect(quietPathsOf('v1', 'services')).toEqual([]);
    expect(quietPathsOf('networking.k8s.io/v1', 'ingressclasses')).toEqual([]);
    expect(quietPathsOf('discovery.k8s.io/v1', 'endpointslices')).toEqual([]);
  });
});
