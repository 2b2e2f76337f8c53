import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as slim from './client-node-gen.js';
import { SLIM_GEN_URL, resolve } from './client-node-hooks.js';

const CONFIG_URL = 'file:///app/node_modules/@kubernetes/client-node/dist/config.js';
const next = (specifier: string) => ({ url: `next:${specifier}` });
const context = (parentURL: string | undefined) => (parentURL ? { parentURL } : {});

/** The installed client-node's dist folder. */
function clientNodeDist(): string {
  const require = createRequire(import.meta.url);
  return require.resolve('@kubernetes/client-node/package.json').replace(/package\.json$/, 'dist/');
}

describe('client-node resolve hook', () => {
  it("resolves client-node config.js's generated index to the two-name module", () => {
    expect(resolve('./gen/index.js', context(CONFIG_URL), next)).toEqual({
      url: SLIM_GEN_URL,
      shortCircuit: true,
    });
  });

  it('leaves every other import alone', () => {
    const other = 'file:///app/node_modules/@kubernetes/client-node/dist/api.js';
    expect(resolve('./gen/index.js', context(other), next)).toEqual({ url: 'next:./gen/index.js' });
    expect(resolve('./gen/index.js', context('file:///app/dist/x/config.js'), next)).toEqual({
      url: 'next:./gen/index.js',
    });
    expect(resolve('./config_types.js', context(CONFIG_URL), next)).toEqual({
      url: 'next:./config_types.js',
    });
    expect(resolve('@kubernetes/client-node', context(undefined), next)).toEqual({
      url: 'next:@kubernetes/client-node',
    });
  });

  it('gives config.js every name it imports from the index, the same objects', async () => {
    const source = readFileSync(`${clientNodeDist()}config.js`, 'utf8');
    const imports = [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\/gen\/index\.js'/g)];
    // One import statement; a client-node upgrade that changes it fails here, not at start.
    expect(imports).toHaveLength(1);
    const names = imports[0]![1]!
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '')
      .sort();
    expect(names).toEqual(Object.keys(slim).sort());
    const index = (await import('@kubernetes/client-node/dist/gen/index.js')) as Record<
      string,
      unknown
    >;
    for (const name of names) expect((slim as Record<string, unknown>)[name]).toBe(index[name]);
  });
});
