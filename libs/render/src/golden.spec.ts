// Golden-file tests: each directory under libs/render/golden holds config.yaml (a
// HAProxyTemplateConfig), resources.yaml (objects per watched name), optionally inputs.yaml
// (controller, previous, maxQuarantine) and expected/ (every output plus result.yaml).
// UPDATE_GOLDEN=1 rewrites expected/ (refused under CI=true); review the diff before committing.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTemplateConfigText } from '#core';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { compileTemplates } from './lib/compile.js';
import { render } from './lib/render.js';
import { snapshotOf } from '#index';
import type { RenderInputs, RenderResult } from './lib/types.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), '..', 'golden');
const YAML_OPTIONS = { aliasDuplicateObjects: false, lineWidth: 0 } as const;
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';
// A CI run compares with expected/; rewriting it there would make every case pass by definition.
if (UPDATE && process.env['CI'] === 'true')
  throw new Error('UPDATE_GOLDEN=1 is refused under CI=true: run it locally and commit expected/');

function readYaml(file: string): unknown {
  return existsSync(file) ? parse(readFileSync(file, 'utf8')) : undefined;
}

function listFiles(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

function outputFiles(result: RenderResult): Record<string, string> {
  const files: Record<string, string> = {};
  const { quarantined, attempts } = result;
  if (result.ok) {
    files['haproxy.cfg'] = result.outputs.haproxyConfig;
    const groups = [
      ['maps', result.outputs.maps],
      ['files', result.outputs.files],
      ['certs', result.outputs.sslCertificates],
      ['crt-lists', result.outputs.crtLists],
    ] as const;
    for (const [dir, record] of groups) {
      for (const [name, content] of Object.entries(record)) files[`${dir}/${name}`] = content;
    }
    files['result.yaml'] = stringify(
      { ok: true, hash: result.hash, attempts, quarantined },
      YAML_OPTIONS,
    );
  } else {
    files['result.yaml'] = stringify(
      {
        ok: false,
        attempts,
        problems: result.problems,
        quarantined,
      },
      YAML_OPTIONS,
    );
  }
  return files;
}

function runCase(dir: string): Record<string, string> {
  const parsed = parseTemplateConfigText(readFileSync(join(dir, 'config.yaml'), 'utf8'));
  if (!parsed.ok) throw new Error(`config.yaml invalid: ${JSON.stringify(parsed.problems)}`);
  const { spec } = parsed.config;
  const compiled = compileTemplates(spec, { configVersion: 'golden' });
  if (!compiled.ok) {
    return {
      'result.yaml': stringify({ ok: false, compileProblems: compiled.error }, YAML_OPTIONS),
    };
  }
  const indexBy = Object.fromEntries(
    Object.entries(spec.watchedResources).map(([name, w]) => [name, w.indexBy]),
  );
  const objects = (readYaml(join(dir, 'resources.yaml')) ?? {}) as Record<string, object[]>;
  const inputs = (readYaml(join(dir, 'inputs.yaml')) ?? {}) as RenderInputs;
  const first = render(compiled.value, snapshotOf(indexBy, objects), inputs);
  const again = render(compiled.value, snapshotOf(indexBy, objects), inputs);
  // Determinism: the same snapshot gives byte-identical outputs and the same hash.
  expect(outputFiles(again)).toEqual(outputFiles(first));
  return outputFiles(first);
}

const cases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe('render golden files', () => {
  it('has at least 15 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases)('%s', (name) => {
    const dir = join(GOLDEN, name);
    const actual = runCase(dir);
    const expectedDir = join(dir, 'expected');
    if (UPDATE) {
      rmSync(expectedDir, { recursive: true, force: true });
      for (const [file, content] of Object.entries(actual)) {
        mkdirSync(dirname(join(expectedDir, file)), { recursive: true });
        writeFileSync(join(expectedDir, file), content);
      }
    }
    const expectedFiles = listFiles(expectedDir).sort();
    expect(Object.keys(actual).sort()).toEqual(expectedFiles);
    for (const file of expectedFiles) {
      expect(actual[file], file).toBe(readFileSync(join(expectedDir, file), 'utf8'));
    }
  });
});
