// `haptic` from a checkout (bin/haptic.js starts this when the test-bed is built; the image has
// only the product's apps/controller/src/main.ts).
import 'reflect-metadata';
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv);
