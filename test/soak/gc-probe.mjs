// Test-only preload for the soak's controller processes, started with
// NODE_OPTIONS="--expose-gc --import <this file>": on SIGUSR2, two full garbage collections, then
// one stderr line `{"soakHeap":{"seq":n,"heapUsed":bytes,"rss":bytes}}`. Nothing in the
// controller itself can force a collection; production processes never load this file.
let seq = 0;
process.on('SIGUSR2', () => {
  const gc = globalThis.gc;
  if (typeof gc !== 'function') return;
  gc();
  gc();
  const m = process.memoryUsage();
  seq += 1;
  process.stderr.write(
    `${JSON.stringify({ soakHeap: { seq, heapUsed: m.heapUsed, rss: m.rss } })}\n`,
  );
});
