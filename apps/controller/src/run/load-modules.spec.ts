import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupConfigError } from './kube-config.js';
import { loadExtension, loadExtensions, moduleUrl } from './load-modules.js';

const dir = mkdtempSync(join(tmpdir(), 'haptic-mod-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

describe('--module loading', () => {
  it('resolves paths from the working directory and packages as installed', () => {
    const path = file('m.mjs', 'export default class M {}\n');
    expect(moduleUrl('./m.mjs', dir)).toBe(pathToFileURL(path).href);
    expect(moduleUrl(path, '/')).toBe(pathToFileURL(path).href);
    expect(moduleUrl('@haptic-examples/hello-module', process.cwd())).toMatch(
      /^file:.*examples\/hello-module\/dist\/index\.js$/,
    );
    expect(() => moduleUrl('./absent.mjs', dir)).toThrow(StartupConfigError);
  });

  it('takes the default (or `module`) export as the Nest module, and contextProviders', async () => {
    file(
      'both.mjs',
      'export class Feature {}\nexport default Feature;\n' +
        "export const contextProviders = [{ name: 'team', provide: () => 1 }];\n",
    );
    file(
      'named.mjs',
      'class Feature {}\nexport const module = { module: Feature, global: true };\n',
    );
    const both = await loadExtension('./both.mjs', dir);
    expect(both.modules).toHaveLength(1);
    expect(both.contextProviders?.map((p) => p.name)).toEqual(['team']);
    const all = await loadExtensions(['./both.mjs', './named.mjs'], dir);
    expect(all.modules).toHaveLength(2);
    expect(all.contextProviders).toHaveLength(1);
  });

  it('refuses, naming the module, what is not a Nest module or a provider list', async () => {
    file('number.mjs', 'export default 42;\n');
    file('bad-providers.mjs', 'export default class M {}\nexport const contextProviders = [{}];\n');
    file('throws.mjs', "throw new Error('boom');\n");
    await expect(loadExtension('./number.mjs', dir)).rejects.toThrow(
      '--module ./number.mjs: exports no Nest module',
    );
    await expect(loadExtension('./bad-providers.mjs', dir)).rejects.toThrow(
      '--module ./bad-providers.mjs: export contextProviders must be',
    );
    await expect(loadExtension('./throws.mjs', dir)).rejects.toThrow(
      '--module ./throws.mjs: cannot import: boom',
    );
    await expect(loadExtension('no-such-package-for-haptic', dir)).rejects.toBeInstanceOf(
      StartupConfigError,
    );
  });
});
