#!/usr/bin/env node
// `npm run demo`: kube-sim, node-sim, haptic (HAProxy pods with the agent and a real HAProxy, the
// controller) and example Ingresses; prints what runs and what to try. Ctrl-C/SIGTERM stops all.
//   --state-file FILE   write {kubeconfig, haproxy, controller, agent, hosts, ingressClass, library}
//                       as JSON once serving
//   --library NAME      the chart's template library: ingress (default) or ingress-nginx
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setInterval } from 'node:timers';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = `usage: npm run demo [-- [--library NAME] [--state-file FILE]]
  --library NAME      the chart's template library (controller.config.library): ingress (default;
                      IngressClass haptic) or ingress-nginx (the nginx.ingress.kubernetes.io/*
                      annotations honoured; IngressClass nginx)
  --state-file FILE   once serving, write {kubeconfig, haproxy, controller, agent, hosts,
                      ingressClass, library} as JSON
`;
let values;
try {
  ({ values } = parseArgs({
    options: {
      'state-file': { type: 'string' },
      library: { type: 'string', default: 'ingress' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : e}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
// Known before anything starts: a typo is a usage error, not a failed demo.
const LIBRARIES = ['ingress', 'ingress-nginx'];
if (!LIBRARIES.includes(values.library)) {
  process.stderr.write(
    `unknown library "${values.library}" (--library takes one of: ${LIBRARIES.join(', ')})\n`,
  );
  process.exit(2);
}

/** Runs a setup step quietly; prints its output and exits when it fails. */
function step(what, cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`${what} failed:\n${r.stdout ?? ''}${r.stderr ?? ''}\n`);
    process.exit(1);
  }
}

process.stdout.write('preparing: HAProxy 3.0, kubectl and helm in .tools (scripts/setup.sh)...\n');
step('scripts/setup.sh', 'bash', ['scripts/setup.sh']);
if (!existsSync(join(root, 'dist/libs/testbed/stack/src/index.js')))
  step('npm run build', 'npm', ['run', '--silent', 'build']);

const { startDemo, describeDemo } = await import('#testbed/stack');
const dir = await mkdtemp(join(tmpdir(), 'haptic-demo-'));
const logFile = join(dir, 'demo.log');
const logLines = [];
let demo;
let stopping;

async function stop(code) {
  stopping ??= (async () => {
    process.stdout.write('\nstopping: every pod, process and file the demo started...\n');
    await demo?.stack.stop();
    await rm(dir, { recursive: true, force: true });
    process.stdout.write('stopped\n');
    process.exit(code);
  })();
  return stopping;
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
// `npm run demo` may be stopped by signalling npm, which does not pass the signal on to the
// script's shell: stop as if signalled when the parent, or npm above the script's shell, is gone.
const watchedPids = [process.ppid];
if (process.env['npm_lifecycle_event']) {
  try {
    const stat = readFileSync(`/proc/${process.ppid}/stat`, 'utf8');
    const npmPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (npmPid > 1) watchedPids.push(npmPid);
  } catch {
    // no /proc: only the direct parent is watched
  }
}
const parentPid = process.ppid;
setInterval(() => {
  const gone = watchedPids.some((pid) => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
  if (gone || process.ppid !== parentPid) void stop(0);
}, 500).unref();

process.stdout.write(
  `starting kube-sim and node-sim, installing the chart with the ${values.library} library (two HAProxy pods, two controllers), applying examples...\n`,
);
try {
  demo = await startDemo({ dir, library: values.library, log: (l) => logLines.push(l) });
} catch (e) {
  process.stderr.write(`the demo did not come up: ${e instanceof Error ? e.message : e}\n`);
  process.stderr.write(`${logLines.slice(-20).join('\n')}\n`);
  await stop(1);
}
if (!stopping) {
  if (values['state-file'])
    await writeFile(values['state-file'], `${JSON.stringify(demo.state, null, 2)}\n`);
  await writeFile(logFile, logLines.join('\n'));
  process.stdout.write(`\n${describeDemo(demo, join(root, '.tools/bin/kubectl'))}\n`);
}
