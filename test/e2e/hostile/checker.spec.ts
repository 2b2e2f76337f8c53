import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTemplateConfigText } from '#core';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { HaproxyChecker, formatProblem, validateOutputs } from '#validation';
import { assembleIngressLibrary, LibraryRenderer } from '../../hostile/library.js';
import { baseObjects, ingress } from '../../hostile/objects.js';
import { makePki } from '../../hostile/pki.js';

// The config checker never runs code from untrusted input: even where the operator lets Ingress
// owners write raw backend snippets (allow_snippets), a snippet that would make `haproxy -c` run
// code — an external check command, Lua, a SPOE filter config — is refused before haproxy -c
// runs, and the command it names never runs.

describe('haproxy -c never runs code from an untrusted snippet', () => {
  let dir: string;
  let renderer: LibraryRenderer;
  let checker: HaproxyChecker;

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
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const marker = () => join(dir, 'ran');
  /** A Lua file that, if HAProxy ever loaded it (haproxy -c runs a loaded file's body), leaves the marker. */
  const luaFile = () => {
    const f = join(dir, 'evil.lua');
    writeFileSync(
      f,
      `local f = io.open(${JSON.stringify(marker())}, "w")\nf:write("ran")\nf:close()\n`,
    );
    return f;
  };
  const snippets: Record<string, () => string> = {
    'external-check': () => `option external-check\nexternal-check command /bin/touch ${marker()}`,
    lua: () => 'http-request lua.evil',
    'filter-config': () => `filter spoe engine x config ${marker()}`,
    // a second global section (HAProxy allows several) loading Lua
    'lua-load': () => `global\n  lua-load ${luaFile()}`,
    'lua-load-per-thread': () => `global\n  lua-load-per-thread ${luaFile()}`,
    program: () => `program evil\n  command /bin/touch ${marker()}`,
    // files outside the rendered tree: an error page and a returned file read from the host
    'errorfile outside the tree': () => `errorfile 503 /etc/passwd`,
    'return file outside the tree': () =>
      `http-request return status 200 content-type text/plain file /etc/passwd`,
  };

  it.each(Object.keys(snippets))('refuses a %s snippet before haproxy -c runs', async (id) => {
    const snippet = snippets[id]?.() ?? '';
    const pki = makePki();
    const objects = [
      ...baseObjects(pki, { ip: '127.0.0.1', port: 8080 }),
      ingress({
        name: 'snippet',
        host: 'snippet.example.com',
        annotations: { 'haproxy-haptic.org/backend-snippet': snippet },
      }),
    ];
    const r = renderer.render(objects);
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
    expect(r.outputs.haproxyConfig).toContain(snippet.split('\n')[0]);
    const result = await validateOutputs(r.outputs, {
      dirs: { mapsDir: 'maps', sslCertsDir: 'ssl', generalStorageDir: 'general' },
      checker,
      tmpBase: dir,
    });
    expect(result.valid).toBe(false);
    expect(result.haproxy.ran).toBe(false);
    const why = result.problems.map(formatProblem).join('\n');
    expect(why, id).toMatch(/refused|not (a file|in|one of)|outside|unknown|does not exist/i);
    expect(why, id).toMatch(/external-check|lua|filter|program|\/etc\/passwd/);
    expect(existsSync(marker())).toBe(false);
  });
});
