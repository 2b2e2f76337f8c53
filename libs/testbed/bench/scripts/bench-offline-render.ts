// The offline command at scale: `haptic render` of the Ingress library over one generated YAML
// dump (Ingresses, Services, EndpointSlices, a TLS Secret per 20) per size, against `haproxy -c`
// of its output. Run: npm run bench:offline-render [-- [sizes...] [--reps N] [-o json]
// [--haproxy-bin PATH] [--keep DIR]]
import { resolveHaproxyBinary } from '#haproxy-bin';
import { generateCertificate } from '#testbed/kube-sim';
import { formatFigures, offlineRenderScenario, rounded } from '../src/index.js';

interface Args {
  sizes: number[];
  reps: number;
  json: boolean;
  haproxyBin: string | undefined;
  keep: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { sizes: [], reps: 3, json: false, haproxyBin: undefined, keep: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--reps') args.reps = Number(argv[++i]);
    else if (a === '-o' || a === '--output') args.json = argv[++i] === 'json';
    else if (a === '--haproxy-bin') args.haproxyBin = argv[++i];
    else if (a === '--keep') args.keep = argv[++i];
    else if (/^[0-9]+$/.test(a)) args.sizes.push(Number(a));
    else throw new Error(`unknown argument ${a}`);
  }
  if (args.sizes.length === 0) args.sizes = [10000];
  if (!Number.isInteger(args.reps) || args.reps < 1) throw new Error('--reps needs a count');
  return args;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const haproxyBin = resolveHaproxyBinary(args.haproxyBin);
  const tls = await generateCertificate({ commonName: 'bench', dnsNames: ['*.example.com'] });
  const figures = await offlineRenderScenario({
    root: process.cwd(),
    sizes: args.sizes,
    repetitions: args.reps,
    haproxyBin,
    tls,
    ...(args.keep ? { keepDir: args.keep } : {}),
    log: (l) => console.error(`bench:offline-render: ${l}`),
  });
  if (args.json) console.log(JSON.stringify(figures.map(rounded), null, 2));
  else console.log(`haproxy: ${haproxyBin}\n${formatFigures(figures)}`);
}

main().catch((e: unknown) => {
  console.error(`bench:offline-render: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
