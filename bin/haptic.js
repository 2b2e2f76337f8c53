#!/usr/bin/env node
// The `haptic` command. The TypeScript build (run by `npm ci` through `prepare`) lives in dist/.
//
// Before anything else it derives the V8 heap limit from the cgroup memory limit (the Node
// equivalent of GOMEMLIMIT; see apps/controller/src/cli/heap-limit.ts): when the process runs
// under a memory limit and no --max-old-space-size was given, node is started again with one,
// and with glibc malloc settings that keep less memory resident (`mallocEnv`; glibc reads them
// only at start, hence here). The process that runs the command registers a module resolution
// hook first (cli/client-node-hooks.ts), so @kubernetes/client-node's KubeConfig loads without
// its generated API clients (on Node 20, for `haptic run` only: see below).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/apps/controller/src/', import.meta.url);
// From a checkout, the test-bed's CLI (the product's commands and its own: kube-sim, node-sim,
// echo, bench); in the image, which carries no test bed, the product's.
const testBed = new URL('../dist/libs/testbed/cli/src/main.js', import.meta.url);
const entry = existsSync(testBed) ? testBed : new URL('main.js', dist);
if (!existsSync(entry)) {
  process.stderr.write('haptic: not built yet; run `npm run build` in the haptic checkout\n');
  process.exit(1);
}

const { heapFlags, mallocEnv, systemCgroupPaths } = await import(
  new URL('cli/heap-limit.js', dist).href
);
const flags = heapFlags(process.execArgv, process.env, systemCgroupPaths());

if (flags === undefined) {
  // Keeps client-node's generated API clients unloaded (see cli/client-node-hooks.ts); Node 20
  // has only the off-thread hook API, Node >= 22.15 the in-thread one. The off-thread hook makes
  // every module resolution a round trip to a loader thread (about 0.5 s of a command's start),
  // so on Node 20 only the resident controller (`haptic run`, where the memory counts) takes it.
  const hooks = new URL('cli/client-node-hooks.js', dist);
  const command = process.argv.slice(2).find((a) => !a.startsWith('-'));
  if (typeof module.registerHooks === 'function')
    module.registerHooks({ resolve: (await import(hooks.href)).resolve });
  else if (command === 'run') module.register(hooks.href);
  await import(entry.href);
} else {
  const args = [
    ...process.execArgv,
    ...flags,
    fileURLToPath(import.meta.url),
    ...process.argv.slice(2),
  ];
  const env = mallocEnv(process.env);
  if (typeof process.execve === 'function') {
    // Node >= 22.15 replaces this process: no second node stays resident under the limit.
    process.execve(process.execPath, [process.execPath, ...args], env);
  }
  // Node 20: a child with the flag; this process only relays signals and the exit status.
  const child = spawn(process.execPath, args, { stdio: 'inherit', env });
  const relay = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1', 'SIGUSR2'];
  for (const signal of relay) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      for (const s of relay) process.removeAllListeners(s);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}
