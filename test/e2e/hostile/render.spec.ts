import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { classify } from '../../hostile/classify.js';
import { buildCorpus, sampleOf, type HostileCase } from '../../hostile/corpus.js';
import { HAZARDS } from '../../hostile/hazards.js';
import { corpusLibrary, LibraryRenderer } from '../../hostile/library.js';
import { baseObjects, type Obj } from '../../hostile/objects.js';
import { makePki, type Pki } from '../../hostile/pki.js';
import { coverageTable, tally, type Outcome } from '../../hostile/report.js';

// Leg "in process": every case of the corpus through the render library with the shipped
// Ingress library, beside a base of harmless objects. Each is quarantined with a reason or
// rendered safely (its outputs differ from its harmless twin's only in value tokens); the base
// keeps being served either way.

const BACKEND = { ip: '10.0.0.1', port: 8080 };
const BARE_FIELD = 'annotation route-tag (bare template)';
/**
 * `npm test` runs every 7th field case, every case of the operator's bare-`{{ }}` field and every
 * certificate and size case; HOSTILE_FULL=1 all.
 */
const FULL = process.env['HOSTILE_FULL'] === '1';

describe('the hostile-input corpus through the render library', () => {
  let pki: Pki;
  let corpus: HostileCase[];
  let renderer: LibraryRenderer;
  let base: Obj[];
  const outcomes: Outcome[] = [];

  beforeAll(() => {
    pki = makePki();
    const all = buildCorpus(pki, BACKEND);
    corpus = FULL ? all : sampleOf(all, 7, [BARE_FIELD, 'certificate', 'object size']);
    renderer = new LibraryRenderer(corpusLibrary().config);
    base = baseObjects(pki, BACKEND);
  });

  it('holds at least 300 objects and covers every field with every hazard', () => {
    const objects = corpus.reduce((n, c) => n + c.objects.length, 0);
    const all = buildCorpus(pki, BACKEND);
    const inAll = all.reduce((n, c) => n + c.objects.length, 0);
    console.log(
      `hostile corpus: ${all.length} cases, ${inAll} objects; this run: ${corpus.length}`,
    );
    expect(all.length).toBeGreaterThanOrEqual(300);
    expect(objects).toBeGreaterThanOrEqual(FULL ? 300 : 150);
    const fields = new Set(all.map((c) => c.field));
    for (const f of fields) {
      if (f === 'certificate' || f === 'object size') continue;
      const hazards = new Set(all.filter((c) => c.field === f).map((c) => c.hazard));
      expect([f, HAZARDS.filter((h) => !hazards.has(h.id)).map((h) => h.id)]).toEqual([f, []]);
    }
  });

  it('accounts for every case: quarantined with a reason or rendered safely, 0 injections', () => {
    const started = performance.now();
    const baseline = renderer.render(base);
    if (!baseline.ok) throw new Error('the base objects do not render');
    expect(baseline.quarantined).toEqual([]);
    for (const c of corpus) {
      const twin = renderer.render([...base, ...c.twin]);
      if (!twin.ok || twin.quarantined.length > 0)
        throw new Error(`corpus defect: the twin of ${c.id} is not harmless`);
      const hostile = renderer.render([...base, ...c.objects]);
      const verdict = classify(
        c.objects,
        hostile,
        twin.outputs,
        (left) => renderer.render([...base, ...c.twin.filter((_, k) => !left.has(k))]),
        c.literal,
      );
      outcomes.push({ case: c, verdict });
      // The base is served whatever the case did.
      if (hostile.ok) {
        expect(hostile.outputs.maps['prefix.map'], c.id).toContain('good.example.com/ ');
        expect(hostile.outputs.maps['prefix.map'], c.id).toContain('annotated.example.com/ ');
      }
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const counts = tally(outcomes);
    const table = coverageTable(outcomes);
    if (process.env['HOSTILE_REPORT']) writeFileSync(process.env['HOSTILE_REPORT'], table);
    console.log(`hostile corpus, in process: ${corpus.length} cases in ${seconds} s`, counts);
    const bad = outcomes
      .filter((o) => o.verdict.kind === 'injection' || o.verdict.kind === 'unaccounted')
      .map((o) => `${o.case.id}: ${JSON.stringify(o.verdict).slice(0, 400)}`);
    expect(bad).toEqual([]);
    expect(counts.injection).toBe(0);
    expect(counts.quarantined + counts['rendered-safely']).toBe(corpus.length);
  });

  it('gives every quarantine a reason naming the field or value', () => {
    for (const o of outcomes) {
      if (o.verdict.kind !== 'quarantined') continue;
      expect(o.verdict.reason.length, o.case.id).toBeGreaterThan(10);
    }
    expect(outcomes.length).toBe(corpus.length);
  });
});
