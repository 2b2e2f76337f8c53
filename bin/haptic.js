#!/usr/bin/env node
// The `haptic` command. The TypeScript build (run by `npm ci` through `prepare`) lives in dist/.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/apps/controller/src/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('haptic: not built yet; run `npm run build` in the haptic checkout\n');
  process.exit(1);
}
await import(entry.href);
