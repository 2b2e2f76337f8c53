// Splits heap snapshots (from `npm run bench:memory -- --heap-snapshot DIR`) between haptic's
// libraries. Run: npm run bench:heap-breakdown -- FILE.heapsnapshot...
import { heapBreakdownOf } from '../src/index.js';

const MIB = 1024 * 1024;

async function main(): Promise<void> {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error('name one or more .heapsnapshot files');
  for (const file of files) {
    const shares = await heapBreakdownOf(file);
    const total = shares.reduce((n, s) => n + s.bytes, 0);
    console.log(`${file}: ${(total / MIB).toFixed(1)} MiB`);
    for (const s of shares)
      console.log(
        `${(s.bytes / MIB).toFixed(1).padStart(8)} MiB  (strings ${(s.stringBytes / MIB).toFixed(1)} MiB)  ${s.owner}`,
      );
  }
}

main().catch((e: unknown) => {
  console.error(`bench:heap-breakdown: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
