import { createHash } from 'node:crypto';

/**
 * One address per Gateway from an IPv4 pool (`a.b.c.d/len`, e.g. a loopback /16 in the test-bed):
 * each Gateway's address is a hash of its namespace/name, probed forward on a collision in name
 * order, so adding or removing one Gateway leaves the others where they are (unless they collided).
 */
export function poolAddresses(pool: string, keys: readonly string[]): ReadonlyMap<string, string> {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(pool.trim());
  if (!m) throw new RangeError(`gateway address pool "${pool}" is not an IPv4 CIDR`);
  const bits = Number(m[5]);
  if (bits < 8 || bits > 30)
    throw new RangeError(`gateway address pool "${pool}" must be /8 to /30`);
  const octets = m.slice(1, 5).map(Number);
  const base =
    (((octets[0] ?? 0) << 24) |
      ((octets[1] ?? 0) << 16) |
      ((octets[2] ?? 0) << 8) |
      (octets[3] ?? 0)) >>>
    0;
  const size = 2 ** (32 - bits);
  const network = base - (base % size);
  const hosts = size - 2;
  if (keys.length > hosts)
    throw new RangeError(
      `gateway address pool "${pool}" has ${hosts} addresses for ${keys.length} Gateways`,
    );
  const used = new Set<number>();
  const out = new Map<string, string>();
  for (const key of [...keys].sort()) {
    let slot = createHash('sha256').update(key).digest().readUInt32BE(0) % hosts;
    while (used.has(slot)) slot = (slot + 1) % hosts;
    used.add(slot);
    const ip = network + 1 + slot;
    out.set(key, [ip >>> 24, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join('.'));
  }
  return out;
}
