import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseTemplateConfigText } from '#core';
import { resolveHaproxyBinary } from '#haproxy-bin';
import type { RenderedOutputs } from '#render';
import { HaproxyChecker, formatProblem, validateOutputs } from '#validation';
import { assembleIngressLibrary, LibraryRenderer } from '../../hostile/library.js';
import { baseObjects, ingress } from '../../hostile/objects.js';
import { makePki } from '../../hostile/pki.js';

// The config checker never runs code from untrusted input. Two layers, each tried on its own:
// - the Ingress library, even where the operator lets Ingress owners write raw backend snippets
//   (allow_snippets): a snippet that opens a section (a second `global` with lua-load, a
//   `program`) quarantines its Ingress at render; one that would make `haproxy -c` run code (an
//   external check, Lua, a SPOE filter config) or read a file outside the rendered tree is
//   refused by the validator before haproxy -c runs;
// - the validator's policy for any template: a rendered configuration with lua-load,
//   lua-load-per-thread or a program section is refused before haproxy -c runs.
// The Lua file used would leave a mark if HAProxy ever loaded it; the control shows that plain
// `haproxy -c` on the same configuration does load it (so the test can fail).

const DIRS = {
  mapsDir: '/etc/haproxy/maps',
  sslCertsDir: '/etc/haproxy/ssl',
  generalStorageDir: '/etc/haproxy/general',
};

describe('haproxy -c never runs code from untrusted input', () => {
  let dir: string;
  let renderer: LibraryRenderer;
  let checker: HaproxyChecker;
  let base: ReturnType<typeof baseObjects>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'haptic-hostile-checker-'));
    const lib = assembleIngressLibrary();
    const text = lib.text.replace(/allow_snippets: false/, 'allow_snippets: true');
    const parsed = parseTemplateConfigText(text);
    if (!parsed.ok) throw new Error('the library does not parse with allow_snippets');
    renderer = new LibraryRenderer(parsed.config);
    checker = new HaproxyChecker({
      binary: resolveHaproxyBinary(),
      timeoutMs: 20_000,
      env: { POD_IP: '127.0.0.1' },
    });
    base = baseObjects(makePki(), { ip: '127.0.0.1', port: 8080 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => rmSync(marker(), { force: true }));

  const marker = () => join(dir, 'ran');
  /** A Lua file that leaves the marker when loaded (haproxy -c runs a loaded file's body). */
  const luaFile = () => {
    const f = join(dir, 'evil.lua');
    writeFileSync(
      f,
      `local f = io.open(${JSON.stringify(marker())}, "w")\nf:write("ran")\nf:close()\n`,
    );
    return f;
  };
  const validate = (outputs: RenderedOutputs) =>
    validateOutputs(outputs, { dirs: DIRS, checker, tmpBase: dir });
  const render = (snippet?: string) => {
    const objects = [
      ...base,
      ...(snippet === undefined
        ? []
        : [
            ingress({
              name: 'snippet',
              host: 'snippet.example.com',
              annotations: { 'haproxy-haptic.org/backend-snippet': snippet },
            }),
          ]),
    ];
    const r = renderer.render(objects);
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
    return r;
  };

  it('control: the base render passes the checker, haproxy -c included', async () => {
    const result = await validate(render().outputs);
    expect(result.problems.map(formatProblem)).toEqual([]);
    expect(result.haproxy.ran).toBe(true);
  });

  it('control: plain haproxy -c does run a lua-load file (what the checks below prevent)', () => {
    const cfg = join(dir, 'plain.cfg');
    writeFileSync(cfg, `global\n  lua-load ${luaFile()}\ndefaults\n  mode http\n`);
    try {
      execFileSync(resolveHaproxyBinary(), ['-c', '-f', cfg], { stdio: 'ignore' });
    } catch {
      // the exit status does not matter: only whether the Lua body ran
    }
    expect(existsSync(marker())).toBe(true);
  });

  const atRender: Record<string, () => string> = {
    'a second global section with lua-load': () => `global\n  lua-load ${luaFile()}`,
    'a second global section with lua-load-per-thread': () =>
      `global\n  lua-load-per-thread ${luaFile()}`,
    'a program section': () => `program evil\n  command /bin/touch ${marker()}`,
  };
  it.each(Object.keys(atRender))('quarantines a snippet opening %s at render', async (id) => {
    const r = render(atRender[id]!());
    expect(r.quarantined.map((q) => q.object.name)).toEqual(['snippet']);
    expect(r.quarantined[0]!.problem.message, id).toMatch(/may not open a section/);
    expect(r.outputs.haproxyConfig).not.toMatch(/lua-load|program evil/);
    expect((await validate(r.outputs)).valid).toBe(true);
    expect(existsSync(marker())).toBe(false);
  });

  const atValidation: Record<string, () => string> = {
    'external-check': () => `option external-check\nexternal-check command /bin/touch ${marker()}`,
    lua: () => 'http-request lua.evil',
    'filter-config': () => `filter spoe engine x config ${marker()}`,
    'lua-load in a backend': () => `lua-load ${luaFile()}`,
    'errorfile outside the tree': () => `errorfile 503 /etc/passwd`,
    'return file outside the tree': () =>
      `http-request return status 200 content-type text/plain file /etc/passwd`,
  };
  it.each(Object.keys(atValidation))('refuses a %s snippet before haproxy -c runs', async (id) => {
    const snippet = atValidation[id]!();
    const r = render(snippet);
    expect(r.quarantined).toEqual([]);
    expect(r.outputs.haproxyConfig).toContain(snippet.split('\n')[0]);
    const result = await validate(r.outputs);
    expect(result.valid).toBe(false);
    expect(result.haproxy.ran).toBe(false);
    const why = result.problems.map(formatProblem).join('\n');
    expect(why, id).toMatch(/external-check|lua|filter|\/etc\/passwd/);
    expect(existsSync(marker())).toBe(false);
  });

  const rawConfigs: Record<string, () => string> = {
    'lua-load in global': () => `global\n  lua-load ${luaFile()}\n`,
    'lua-load-per-thread in global': () => `global\n  lua-load-per-thread ${luaFile()}\n`,
    'a program section': () => `program evil\n  command /bin/touch ${marker()}\n`,
  };
  it.each(Object.keys(rawConfigs))(
    'refuses any rendered configuration with %s before haproxy -c runs',
    async (id) => {
      const outputs = render().outputs;
      const haproxyConfig = `${rawConfigs[id]!()}${outputs.haproxyConfig}`;
      const result = await validate({ ...outputs, haproxyConfig });
      expect(result.valid).toBe(false);
      expect(result.haproxy.ran).toBe(false);
      expect(result.problems.map(formatProblem).join('\n'), id).toMatch(/refused/);
      expect(existsSync(marker())).toBe(false);
    },
  );
});
