// The webhook bench: p50/p99 admission time of the validating webhook at 1,000 Ingresses (the
// default Ingress library), over HTTPS, one UPDATE review at a time.
// Run: npm run bench:webhook [-- [ingresses] [--haproxy-bin PATH] [-o json]]
import { resolveHaproxyBinary } from '#haproxy-bin';
import { generateCertificate } from '#testbed/kube-sim';
import { loadIngressLibrary, percentile, webhookScenario } from '../src/index.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let ingresses = 1000;
  let json = false;
  let bin: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--haproxy-bin') bin = argv[++i];
    else if (a === '-o') json = argv[++i] === 'json';
    else if (/^[0-9]+$/.test(a)) ingresses = Number(a);
    else throw new Error(`unknown argument ${a}`);
  }
  const haproxyBin = resolveHaproxyBinary(bin);
  const tls = await generateCertificate({ ipAddresses: ['127.0.0.1'] });
  const config = await loadIngressLibrary(process.cwd());
  const samples = await webhookScenario({ config, ingresses, haproxyBin, tls });
  const all = samples.flatMap((s) => s.ms);
  const rows = [
    ...samples.map((s) => ({
      kind: s.kind,
      reviews: s.ms.length,
      p50: percentile(s.ms, 50),
      p99: percentile(s.ms, 99),
      max: Math.max(...s.ms),
      outcomes: s.outcomes,
    })),
    {
      kind: 'all',
      reviews: all.length,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      max: Math.max(...all),
      outcomes: {},
    },
  ];
  if (json) {
    console.log(JSON.stringify({ ingresses, haproxyBin, rows }));
    return;
  }
  console.log(`webhook admission time at ${ingresses} Ingresses (HAProxy ${haproxyBin})`);
  for (const r of rows)
    console.log(
      `${r.kind.padEnd(12)} n=${String(r.reviews).padStart(4)}  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  max ${r.max.toFixed(1)} ms  ${JSON.stringify(r.outcomes)}`,
    );
}

main().catch((e: unknown) => {
  console.error(`bench:webhook: ${(e as Error).message}`);
  process.exitCode = 1;
});
