/** One process line of the master CLI's `show proc`. */
export interface ProcEntry {
  readonly pid: number;
  readonly type: string;
  readonly reloads: number;
  readonly version: string;
}

export interface ProcTable {
  readonly master: (ProcEntry & { readonly failed: number }) | undefined;
  readonly workers: readonly ProcEntry[];
  readonly oldWorkers: readonly ProcEntry[];
}

/**
 * Parses `show proc` (master CLI). Current workers are listed under `# workers`, those still
 * draining under `# old workers`; the master line carries `[failed: N]` after a failed reload.
 */
export function parseShowProc(text: string): ProcTable {
  let master: ProcTable['master'];
  const workers: ProcEntry[] = [];
  const oldWorkers: ProcEntry[] = [];
  let section: 'top' | 'workers' | 'old' | 'other' = 'top';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      if (/^# workers/.test(line)) section = 'workers';
      else if (/^# old workers/.test(line)) section = 'old';
      else if (!line.startsWith('#<PID>')) section = 'other';
      continue;
    }
    const m = /^(\d+)\s+(\S+)\s+(\d+)(?:\s+\[failed:\s*(\d+)\])?\s+\S+\s+(\S+)/.exec(line);
    if (!m) continue;
    const entry = {
      pid: Number(m[1]),
      type: m[2] ?? '',
      reloads: Number(m[3]),
      version: m[5] ?? '',
    };
    if (entry.type === 'master') master = { ...entry, failed: Number(m[4] ?? 0) };
    else if (section === 'workers') workers.push(entry);
    else if (section === 'old') oldWorkers.push(entry);
  }
  return { master, workers, oldWorkers };
}
