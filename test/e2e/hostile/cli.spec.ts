import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cfgShape, lineShape } from '../../hostile/classify.js';
import { meaningDifferences, type TextOutputs } from '../../hostile/meaning.js';
import { buildCorpus, type HostileCase } from '../../hostile/corpus.js';
import { corpusLibrary, LibraryRenderer } from '../../hostile/library.js';
import { baseObjects, type Obj } from '../../hostile/objects.js';
import { makePki, type Pki } from '../../hostile/pki.js';
import { haptic } from '../ingress-library/library.js';

// Leg "haptic render": a sample of the corpus through the real CLI (quarantine is off offline,
// so an object the controller would quarantine fails the render with a reason; the rest render,
// pass `--validate` — structure, directive policy and haproxy -c — have the twin's shape, and
// every word that differs from the twin's reads, by HAProxy's rules, as the literal value).

const FULL = process.env['HOSTILE_FULL'] === '1';
/** The whole corpus is one process per case; four cases have a real budget. */
const BUDGET_MS = FULL ? 1_800_000 : 300_000;
const BACKEND = { ip: '10.0.0.1', port: 8080 };

function readTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) {
      const path = join(e.parentPath, e.name);
      files.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  }
  return files;
}

/** haproxy.cfg's shape and every map's and crt-list's line shapes, by file. */
function shapes(tree: Map<string, string>): Record<string, string[]> {
  return Object.fromEntries(
    [...tree]
      .filter(([f]) => f === 'haproxy.cfg' || f.endsWith('.map') || f.endsWith('crtlist'))
      .map(([f, text]) => [f, f === 'haproxy.cfg' ? cfgShape(text) : lineShape(text)]),
  );
}

/** The tree's haproxy.cfg, maps and crt-lists as the meaning judge reads them. */
function textOutputs(tree: Map<string, string>): TextOutputs {
  const pick = (suffix: string) =>
    Object.fromEntries(
      [...tree].filter(([f]) => f.endsWith(suffix)).map(([f, t]) => [basename(f), t]),
    );
  return {
    haproxyConfig: tree.get('haproxy.cfg') ?? '',
    maps: pick('.map'),
    crtLists: pick('crtlist'),
  };
}

describe('a sample of the hostile-input corpus through `haptic render`', () => {
  let dir: string;
  let library: string;
  let pki: Pki;
  let base: Obj[];
  let renderer: LibraryRenderer;
  let sample: HostileCase[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'haptic-hostile-cli-'));
    const lib = corpusLibrary();
    library = join(dir, 'library.yaml');
    writeFileSync(library, lib.text);
    renderer = new LibraryRenderer(lib.config);
    pki = makePki();
    base = baseObjects(pki, BACKEND);
    const all = buildCorpus(pki, BACKEND);
    // Each CLI run starts a process (seconds on a loaded machine): `npm test` runs four cases,
    // two of them rendered (a typed filter's and the operator's bare `{{ }}`).
    const chosen = [
      'annotation request-headers (value)/double-quote',
      'annotation route-tag (bare template)/log-format',
    ];
    sample = all.filter((c, k) => FULL || k % 545 === 0 || chosen.includes(c.id));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let n = 0;
  const render = async (objects: readonly Obj[], validate: boolean) => {
    const folder = join(dir, `case-${n++}`);
    const resources = `${folder}-resources.yaml`;
    writeFileSync(resources, objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n'));
    const args = ['render', '-f', library, '--resources', resources, '-o', folder];
    const run = await haptic(validate ? [...args, '--validate'] : args);
    return { run, tree: () => readTree(folder) };
  };

  it(
    'refuses what the controller quarantines, naming it; renders the rest safely',
    async () => {
      const started = performance.now();
      let refused = 0;
      let safe = 0;
      for (const c of sample) {
        const inProcess = renderer.render([...base, ...c.objects]);
        const quarantined = inProcess.ok && inProcess.quarantined.length > 0;
        const hostile = await render([...base, ...c.objects], !quarantined);
        if (quarantined) {
          expect([c.id, hostile.run.code], hostile.run.stderr).toEqual([c.id, 1]);
          expect(hostile.run.stderr, c.id).toContain('render failed');
          refused++;
          continue;
        }
        expect([c.id, hostile.run.code], hostile.run.stderr).toEqual([c.id, 0]);
        expect(hostile.run.stderr, c.id).toContain('haptic render: valid');
        const twin = await render([...base, ...c.twin], false);
        const [h, t] = [hostile.tree(), twin.tree()];
        expect(shapes(h), c.id).toEqual(shapes(t));
        expect(meaningDifferences(textOutputs(h), textOutputs(t), c.literal), c.id).toEqual([]);
        safe++;
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`hostile corpus, haptic render: ${sample.length} cases in ${seconds} s`, {
        refused,
        safe,
      });
      expect(refused + safe).toBe(sample.length);
      expect(refused).toBeGreaterThan(0);
    },
    BUDGET_MS,
  );
});
