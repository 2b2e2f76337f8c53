/** Writes the generated reference pages under docs/reference (a test fails when they are stale). */
import 'reflect-metadata';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { generatedDocs } from '../../../../apps/controller/src/docs/generated.js';
import { testBedCommands } from '../src/cli.js';

const root = process.cwd();
for (const [path, text] of await generatedDocs(root, testBedCommands)) {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
  console.log(`wrote ${path}`);
}
