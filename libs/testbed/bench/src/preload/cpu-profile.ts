// Loaded into the controller with `node --import` (NODE_OPTIONS refuses --cpu-prof): profiles
// the CPU with the inspector in-process and writes one `.cpuprofile` per interval into
// HAPTIC_CPU_PROFILE_DIR, so a process that never finishes its work can still be profiled.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env['HAPTIC_CPU_PROFILE_DIR'];
const intervalMs = Number(process.env['HAPTIC_CPU_PROFILE_INTERVAL_MS'] ?? 60_000);

if (dir) {
  const session = new Session();
  session.connect();
  let n = 0;
  const start = (): void => {
    session.post('Profiler.enable');
    session.post('Profiler.start');
  };
  const dump = (): void => {
    session.post('Profiler.stop', (err, res) => {
      if (!err) {
        const file = join(dir, `cpu-${process.pid}-${String(n++).padStart(3, '0')}.cpuprofile`);
        writeFileSync(file, JSON.stringify(res.profile));
      }
      start();
    });
  };
  start();
  setInterval(dump, intervalMs).unref();
  process.once('SIGTERM', dump);
}
