import { describe, expect, it } from 'vitest';
import { compileTemplates, type CompiledTemplates } from '../compile.js';
import { render } from '../render.js';
import { snapshotOf } from '#index';
import { ingressObject } from '#testbed/testing';
import type { RenderSnapshot } from '../types.js';
import { specOf } from '../spec-fixture.test.js';

const CONTROLLER = 'haproxy-haptic.org/ingress-controller';

function compiled(): CompiledTemplates {
  const spec = specOf({
    haproxy: '{% for r in ingress.prefix_routes %}{{ r.key }} {{ r.backend }}\n{% endfor %}',
    extra: { controller_name: CONTROLLER },
  });
  const withClasses = {
    ...spec,
    watchedResources: {
      ...spec.watchedResources,
      ingressclasses: { ...spec.watchedResources['ingresses']!, indexBy: ['metadata.name'] },
    },
  };
  const result = compileTemplates(withClasses);
  if (!result.ok) throw new Error(result.error[0]?.message);
  return result.value;
}

const ing = (name: string, host: string) =>
  ingressObject({
    name,
    host,
    cls: 'haptic',
    creationTimestamp: `2024-01-01T00:00:0${name.length}Z`,
  });

function snapshot(ingresses: object[]): RenderSnapshot {
  return snapshotOf(
    { ingresses: ['metadata.namespace', 'metadata.name'], ingressclasses: ['metadata.name'] },
    {
      ingresses,
      ingressclasses: [{ metadata: { name: 'haptic' }, spec: { controller: CONTROLLER } }],
    },
  );
}

describe('the ingress context provider in a render', () => {
  it('quarantines every refused Ingress with one more render, not one each', () => {
    const bad = ['b1', 'b22', 'b333', 'b4444'].map((n) => ing(n, 'not a host'));
    const result = render(compiled(), snapshot([ing('good', 'a.example.com'), ...bad]));
    expect(result.ok && result.outputs.haproxyConfig).toBe('a.example.com/ svc_apps_web_80\n');
    expect(result.attempts).toBe(2);
    expect(result.quarantined.map((q) => q.object.name)).toEqual(['b1', 'b22', 'b333', 'b4444']);
  });

  it('quarantines up to the bound and reports the rest as problems', () => {
    const bad = ['b1', 'b22', 'b333'].map((n) => ing(n, 'not a host'));
    const result = render(compiled(), snapshot(bad), { maxQuarantine: 1 });
    expect(result.ok).toBe(false);
    expect(result.quarantined.map((q) => q.object.name)).toEqual(['b1']);
    expect(!result.ok && result.problems.map((p) => p.object?.name)).toEqual(['b22', 'b333']);
  });

  it('is computed once per render, however many templates read it', () => {
    let reads = 0;
    const c = compiled();
    const base = snapshot([ing('good', 'a.example.com')]);
    const counting = {
      list: (w: string) => {
        if (w === 'ingresses') reads++;
        return base.list(w);
      },
      lookup: (w: string, k: readonly string[]) => base.lookup(w, k),
    };
    const twice = {
      ...c,
      templates: [
        ...c.templates,
        { ...c.templates[0]!, kind: 'map' as const, file: 'm', label: 'map:m' },
      ],
    };
    expect(render(twice, counting).ok).toBe(true);
    expect(reads).toBe(1);
  });
});
