// The render bench: the default Ingress library on generated clusters of 1,000 and 10,000
// Ingresses — full render, one-Ingress change and `haproxy -c` on the same output, with ratios.
// Run: npm run bench:render [-- [sizes...] [--reps N] [-o json] [--haproxy-bin PATH]]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHaproxyBinary } from '#haproxy-bin';
import {
  formatFigures,
  loadIngressLibrary,
  renderScenario,
  rounded,
  type TlsPair,
} from '../src/index.js';

interface Args {
  sizes: number[];
  reps: number;
  json: boolean;
  haproxyBin: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { sizes: [], reps: 3, json: false, haproxyBin: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--reps') args.reps = Number(argv[++i]);
    else if (a === '-o' || a === '--output') args.json = argv[++i] === 'json';
    else if (a === '--haproxy-bin') args.haproxyBin = argv[++i];
    else if (/^[0-9]+$/.test(a)) args.sizes.push(Number(a));
    else throw new Error(`unknown argument ${a}`);
  }
  if (args.sizes.length === 0) args.sizes = [1000, 10000];
  if (!Number.isInteger(args.reps) || args.reps < 1) throw new Error('--reps needs a count');
  return args;
}

/** One self-signed certificate for every generated TLS Secret (openssl), or none without it. */
function certificate(): TlsPair | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'haptic-bench-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '30',
        '-subj',
        '/CN=bench',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const haproxyBin = resolveHaproxyBinary(args.haproxyBin);
  const tls = certificate();
  if (!tls) console.error('bench:render: openssl not found; no TLS Secrets are generated');
  const config = await loadIngressLibrary(process.cwd());
  const figures = await renderScenario({
    config,
    sizes: args.sizes,
    repetitions: args.reps,
    haproxyBin,
    ...(tls ? { tls } : {}),
    log: (l) => console.error(`bench:render: ${l}`),
  });
  if (args.json) console.log(JSON.stringify(figures.map(rounded), null, 2));
  else console.log(`haproxy: ${haproxyBin}\n${formatFigures(figures)}`);
}

main().catch((e: unknown) => {
  console.error(`bench:render: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
