/** One `server` line split into what the runtime API can set and what it cannot. */
interface ServerLine {
  readonly name: string;
  /** Everything but address, port, weight and `disabled`: must not change without a reload. */
  readonly fixed: string;
}

// `server <name> <addr:port> <options...> weight <n> [disabled]`, as the library writes them.
const SERVER = /^(\s*server) (\S+) (\S+)((?: \S+)*?) weight \d+( disabled)?$/;

function serverLine(line: string): ServerLine | undefined {
  const m = SERVER.exec(line);
  if (!m) return undefined;
  return { name: m[2] ?? '', fixed: `${m[1] ?? ''} ${m[2] ?? ''} <addr>${m[4] ?? ''}` };
}

/**
 * Why `after` cannot be reached from `before` through the runtime API alone (`set server
 * addr/port`, `set server weight`, `set server state`): an empty list when every difference is
 * one of those. Lines are compared in place, so added or removed lines are reported too.
 */
export function nonRuntimeDifferences(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const problems: string[] = [];
  if (a.length !== b.length) problems.push(`line count changed: ${a.length} -> ${b.length}`);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x === y) continue;
    const sx = serverLine(x);
    const sy = serverLine(y);
    if (!sx || !sy)
      problems.push(
        `line ${i + 1} is not a server line: ${JSON.stringify(x)} -> ${JSON.stringify(y)}`,
      );
    else if (sx.fixed !== sy.fixed)
      problems.push(`line ${i + 1} changes more than address, weight or state: ${x} -> ${y}`);
  }
  return problems;
}

/** Counts lines that differ (in place). */
export function changedLineCount(before: string, after: string): number {
  const a = before.split('\n');
  const b = after.split('\n');
  let n = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) n++;
  return n;
}
