/* eslint-disable @typescript-eslint/no-unsafe-argument -- the CRD is read loosely */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KubeSim } from '#testbed/kube-sim';
import { chartDir, kubectl } from './helm.js';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The chart's CRD as an operator meets it: installed in kube-sim (which serves its OpenAPI as
// the API server does) and read back with the real kubectl's `explain`.
describe("the chart's HAProxyTemplateConfig CRD", () => {
  let sim: KubeSim;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'haptic-crd-'));
    sim = await KubeSim.start({
      kubeconfigPath: join(dir, 'kubeconfig'),
      manifests: [join(chartDir, 'crds/haproxytemplateconfigs.yaml')],
    });
  });
  afterAll(async () => {
    await sim?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('kubectl explain documents every field of the installed HAProxyTemplateConfig CRD', async () => {
    const crd = parse(readFileSync(join(chartDir, 'crds/haproxytemplateconfigs.yaml'), 'utf8'));
    const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    const explain = (field: string) =>
      new Promise<string>((resolve, reject) =>
        execFile(
          kubectl(),
          ['explain', field, '--kubeconfig', sim.kubeconfigPath],
          { timeout: 60_000 },
          (e, out, err) =>
            e ? reject(new Error(`kubectl explain ${field}: ${err}`)) : resolve(out),
        ),
      );
    const top = await explain('haptpl.spec');
    const fields = Object.keys(spec.properties);
    expect(fields.length).toBeGreaterThan(10);
    // Every field with its type and the first words of its one-line doc.
    const listed = (field: string, doc: string) => {
      const words = doc.split(/\s+/).slice(0, 3).join(' ');
      return new RegExp(`^  ${field}\\s+<[^>]+>.*\\n\\s+${escapeRegExp(words)}`, 'm').test(top);
    };
    const missing = fields.filter((f) => !listed(f, spec.properties[f].description as string));
    expect(missing).toEqual([]);
    expect(listed('logging', 'not its doc')).toBe(false); // the check can fail
    const deep = await explain('htplcfg.spec.dataplane.minDeploymentInterval');
    const oneLine = (t: string) => t.replace(/\s+/g, ' ');
    expect(oneLine(deep)).toContain(
      oneLine(spec.properties.dataplane.properties.minDeploymentInterval.description as string),
    );
    // Required fields are marked.
    for (const f of spec.required as string[])
      expect(top).toMatch(new RegExp(`^  ${f}\\s+<[^>]+> -required-$`, 'm'));
  });
});
