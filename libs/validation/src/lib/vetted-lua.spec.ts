import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyOutputs, type RenderedOutputs } from './outputs.js';
import { DEFAULT_STORAGE_DIRS } from './paths.js';
import { formatProblem } from './problems.js';
import { checkStructure } from './structure.js';
import { VETTED_LUA, sha256Hex } from './vetted-lua.js';

// The shipped file, read as the library holds it (it has no Liquid markup: it renders as is).
const SHIPPED = readFileSync(
  new URL(
    '../../../../helm/haptic/libraries/ingress-nginx/files/auth-request.lua.liquid',
    import.meta.url,
  ),
  'utf8',
);
const ERROR_PAGE = readFileSync(
  new URL(
    '../../../../helm/haptic/libraries/ingress-nginx/files/error-page.lua.liquid',
    import.meta.url,
  ),
  'utf8',
);
const DIR = DEFAULT_STORAGE_DIRS.generalStorageDir.replace(/\/$/, '');

const cfg = (load: string, action = 'haptic_nginx_auth') => `global
  ${load}
defaults
  mode http
frontend f
  bind :80
  default_backend b
backend b
  http-request lua.${action}
  server s1 127.0.0.1:8080
`;

const check = (config: string, files: Record<string, string>): string[] => {
  const o: RenderedOutputs = { ...emptyOutputs(config), files };
  return checkStructure(o, { dirs: DEFAULT_STORAGE_DIRS }).map(formatProblem);
};

describe('vetted Lua', () => {
  it('lists the shipped auth-request.lua by its exact content hash', () => {
    expect(VETTED_LUA.map((v) => [v.name, v.sha256])).toEqual([
      ['auth-request.lua', sha256Hex(SHIPPED)],
      ['error-page.lua', sha256Hex(ERROR_PAGE)],
    ]);
  });

  it('lets a render load the shipped file and call its action, without allowedDirectives', () => {
    const load = `lua-load ${DIR}/auth-request.lua`;
    expect(check(cfg(load), { 'auth-request.lua': SHIPPED })).toEqual([]);
    const perThread = `lua-load-per-thread ${DIR}/auth-request.lua`;
    expect(check(cfg(perThread), { 'auth-request.lua': SHIPPED })).toEqual([]);
  });

  it("lets an http-response rule call the error-page file's action, never with a condition or argument", () => {
    const page = (rule: string) => `global
  lua-load ${DIR}/error-page.lua
defaults
  mode http
frontend f
  bind :80
  default_backend b
backend b
  ${rule}
  server s1 127.0.0.1:8080
`;
    const files = { 'error-page.lua': ERROR_PAGE };
    expect(check(page('http-response lua.haptic_nginx_error_page'), files)).toEqual([]);
    for (const rule of [
      'http-response lua.haptic_nginx_error_page if { status 404 }',
      'http-response lua.haptic_nginx_error_page arg',
      'http-response lua.haptic_nginx_auth',
    ])
      expect(check(page(rule), files), rule).toEqual([
        expect.stringContaining(`'${rule}' is refused`) as string,
      ]);
  });

  it('refuses the same name with other content, and the action it would register', () => {
    const load = `lua-load ${DIR}/auth-request.lua`;
    const tampered = `${SHIPPED}\ncore.Alert("x")\n`;
    const problems = check(cfg(load), { 'auth-request.lua': tampered });
    expect(problems.some((p) => p.includes("'lua-load") && p.includes('is refused'))).toBe(true);
    expect(
      problems.some((p) => p.includes("'http-request lua.haptic_nginx_auth' is refused")),
    ).toBe(true);
  });

  it('refuses another Lua file, even with the vetted content under another name', () => {
    const load = `lua-load ${DIR}/other.lua`;
    const problems = check(cfg(load), { 'other.lua': SHIPPED });
    expect(problems.filter((p) => p.includes('is refused'))).toHaveLength(2);
  });

  it('refuses a vetted file loaded from outside the storage dir, and unknown actions', () => {
    expect(
      check(cfg('lua-load /etc/auth-request.lua'), { 'auth-request.lua': SHIPPED }).some((p) =>
        p.includes("'lua-load /etc/auth-request.lua' is refused"),
      ),
    ).toBe(true);
    const load = `lua-load ${DIR}/auth-request.lua`;
    expect(check(cfg(load, 'other_action'), { 'auth-request.lua': SHIPPED })).toEqual([
      expect.stringContaining("'http-request lua.other_action' is refused") as string,
    ]);
  });
});
