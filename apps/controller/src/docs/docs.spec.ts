import 'reflect-metadata';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { BUILTIN_CONTEXT_PROVIDERS, BUILTIN_NAMES, createEngine, HAPTIC_FILTERS } from '#render';
import { DebugController } from '../api/debug.controller.js';
import { HealthController } from '../api/health.controller.js';
import { testBedCommands } from '#testbed/cli';
import { buildProgram } from '../cli/cli.js';
import { commands } from '../cli/commands/index.js';
import { flagRows } from './cli-reference.js';
import { generatedDocs } from './generated.js';
import { HAPTIC_CONTEXT_PROVIDERS } from '../run/gateway-context.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** The first cell of every table row of `page` whose first cell is code (`` `x` ``). */
function tableKeys(page: string): string[] {
  return [...read(page).matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((m) => m[1]!);
}

function markdownFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Every route a Nest controller class declares, with its controller prefix. */
function routes(controller: new (...args: never[]) => unknown): string[] {
  const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const proto = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto)
    .filter((m) => m !== 'constructor' && typeof proto[m] === 'function')
    .flatMap((m) => {
      const path = Reflect.getMetadata(PATH_METADATA, proto[m] as object) as string | undefined;
      if (path === undefined) return [];
      return [`/${[prefix, path].filter((p) => p && p !== '/').join('/')}`];
    });
}

describe('documentation that cannot drift', () => {
  it('every generated reference page is current (run `npm run gen:docs` after a change)', async () => {
    for (const [path, text] of await generatedDocs(root, testBedCommands)) {
      expect(existsSync(join(root, path)), `${path} is missing`).toBe(true);
      expect(read(path), `${path} is stale: run npm run gen:docs`).toBe(text);
    }
  });

  it('the CLI reference lists every flag of every command, and no other', () => {
    const program = buildProgram({ out: () => undefined, err: () => undefined }, () => undefined, [
      ...commands,
      ...testBedCommands,
    ]);
    const documented = new Set(tableKeys('docs/reference/cli.md'));
    const declared = new Set(flagRows(program).map((r) => r.flags));
    expect([...declared].filter((f) => !documented.has(f))).toEqual([]);
    expect([...documented].filter((f) => !declared.has(f))).toEqual([]);
  });

  it('debugging.md documents every /debug and health route, and no other', () => {
    const declared = [...routes(DebugController), ...routes(HealthController)].sort();
    expect(declared.length).toBeGreaterThan(5);
    expect([...tableKeys('docs/operations/debugging.md')].sort()).toEqual(declared);
  });

  it('every metric an alert rule of the chart names is documented in monitoring.md', () => {
    const rules = read('helm/haptic/templates/monitoring/prometheusrule.yaml');
    const named = new Set(
      [...rules.matchAll(/\b(haptic_[a-z_]+?)(?:_bucket|_sum|_count)?\b/g)].map((m) => m[1]!),
    );
    expect(named.size).toBeGreaterThan(3);
    const documented = new Set(tableKeys('docs/operations/monitoring.md'));
    expect([...named].filter((n) => !documented.has(n))).toEqual([]);
  });

  it('the template guide documents every haptic filter, tag and context name, and no other', () => {
    const plain = new Liquid();
    const engine = createEngine({}, false);
    const filters = Object.keys(HAPTIC_FILTERS); // haptic's own, and Liquid's it replaces
    const tags = Object.keys(engine.tags).filter((t) => !(t in plain.tags));
    const declared = [
      ...filters.map((f) => `| ${f}`),
      ...tags.map((t) => `{% ${t}`),
      ...BUILTIN_NAMES.map((n) => `ctx ${n}`),
      ...BUILTIN_CONTEXT_PROVIDERS.map((p) => `ctx ${p.name}`),
      ...HAPTIC_CONTEXT_PROVIDERS.map((p) => `ctx ${p.name}`),
    ].sort();
    const guide = read('docs/template-guide.md');
    const documented = [
      ...[...guide.matchAll(/^### filter `([a-z0-9_]+)`/gm)].map((m) => `| ${m[1]!}`),
      ...[...guide.matchAll(/^### tag `([a-z0-9_]+)`/gm)].map((m) => `{% ${m[1]!}`),
      ...[...guide.matchAll(/^### variable `([a-z0-9_]+)`/gm)].map((m) => `ctx ${m[1]!}`),
    ].sort();
    expect(documented).toEqual(declared);
  });

  it('every relative link between documentation pages resolves', () => {
    const pages = ['README.md', ...markdownFiles('docs')].filter(
      (p) => !p.startsWith(join('docs', 'reference', 'dataplaneapi')),
    );
    const broken: string[] = [];
    for (const page of pages) {
      const prose = read(page).replace(/`[^`\n]*`/g, ''); // code spans hold regexes, not links
      for (const m of prose.matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(root, dirname(page), target))) broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
