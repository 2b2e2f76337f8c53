import { readFileSync } from 'node:fs';

function readVersion(): string {
  // package.json sits at the repository root, four levels above both src/ and dist/ layouts.
  for (const rel of ['../../../../package.json', '../../../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'haptic' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next layout
    }
  }
  return '0.0.0-unknown';
}

/** haptic's version, from package.json. */
export const VERSION = readVersion();
