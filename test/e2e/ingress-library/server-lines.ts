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

const SECTION = /^(\S+)\s+(\S+)/;
const SLOT = /^\s*server (\S+) (\S+)(?: \S+)*? weight (\d+)( disabled)?$/;

interface Slot {
  readonly address: string;
  readonly weight: string;
  readonly disabled: boolean;
}

function slotsByBackend(config: string): Map<string, Slot> {
  const slots = new Map<string, Slot>();
  let backend = '';
  for (const line of config.split('\n')) {
    const section = SECTION.exec(line);
    if (section && !line.startsWith(' '))
      backend = section[1] === 'backend' ? (section[2] ?? '') : '';
    const m = SLOT.exec(line);
    if (backend && m)
      slots.set(`${backend}/${m[1] ?? ''}`, {
        address: m[2] ?? '',
        weight: m[3] ?? '',
        disabled: m[4] !== undefined,
      });
  }
  return slots;
}

function addrAndPort(address: string): [string, string] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at).replace(/^\[|\]$/g, ''), address.slice(at + 1)];
}

/**
 * The runtime API commands (`set server ... addr/weight/state`) that take a running HAProxy
 * from the server slots of `before` to those of `after`.
 */
export function runtimeCommands(before: string, after: string): string[] {
  const old = slotsByBackend(before);
  const commands: string[] = [];
  for (const [id, slot] of slotsByBackend(after)) {
    const was = old.get(id);
    if (!was) throw new Error(`${id} is not a slot of the running configuration`);
    if (slot.disabled) {
      if (!was.disabled) commands.push(`set server ${id} state maint`);
      continue;
    }
    if (slot.address !== was.address) {
      const [addr, port] = addrAndPort(slot.address);
      commands.push(`set server ${id} addr ${addr} port ${port}`);
    }
    if (slot.weight !== was.weight) commands.push(`set server ${id} weight ${slot.weight}`);
    if (was.disabled) commands.push(`set server ${id} state ready`);
  }
  return commands;
}
