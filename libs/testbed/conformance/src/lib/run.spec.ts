import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfiguration, loadSources } from '@cucumber/cucumber/api';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#testbed/stack';

describe('the Ingress conformance features', () => {
  it('expand to 30 cases: 25 scenarios, each Scenario Outline example row one case', async () => {
    const dir = join(repoRoot(), 'test/conformance/ingress');
    const paths = readdirSync(dir)
      .filter((f) => f.endsWith('.feature'))
      .map((f) => join(dir, f));
    expect(paths).toHaveLength(5);
    const { runConfiguration } = await loadConfiguration({
      file: false,
      provided: { paths },
    });
    const { plan, errors } = await loadSources(runConfiguration.sources);
    expect(errors).toEqual([]);
    expect(plan).toHaveLength(30);
    const perFile = new Map<string, number>();
    for (const p of plan)
      perFile.set(p.uri.split('/').pop()!, (perFile.get(p.uri.split('/').pop()!) ?? 0) + 1);
    expect(Object.fromEntries(perFile)).toEqual({
      'default_backend.feature': 6,
      'host_rules.feature': 6,
      'ingress_class.feature': 1,
      'load_balancing.feature': 1,
      'path_rules.feature': 16,
    });
  });
});
