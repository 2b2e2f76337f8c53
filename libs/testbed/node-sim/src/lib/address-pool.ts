import { AddressPoolExhaustedError, NodeSimConfigError } from './node-sim.errors.js';

function toInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new NodeSimConfigError(`not an IPv4 address: ${ip}`);
  }
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

function toIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/**
 * Hands out loopback addresses (127.0.0.0/8 all reaches the loopback device on Linux) for pod IPs.
 * Addresses ending in .0 or .255 are skipped, 127.0.0.1 is never used, and a released address goes
 * to the back of the queue, so a replacement pod does not get the address its predecessor just left.
 */
export class AddressPool {
  private readonly free: number[] = [];
  private readonly used = new Set<number>();

  constructor(first = '127.0.10.1', last = '127.0.19.254') {
    const lo = toInt(first);
    const hi = toInt(last);
    if (lo > hi || lo < toInt('127.0.0.0') || hi > toInt('127.255.255.255')) {
      throw new NodeSimConfigError(
        `pod address range ${first}-${last} must lie within 127.0.0.0/8`,
      );
    }
    for (let n = lo; n <= hi; n++) {
      const lastOctet = n % 256;
      if (lastOctet !== 0 && lastOctet !== 255 && n !== toInt('127.0.0.1')) this.free.push(n);
    }
  }

  /** Takes the next free address. */
  allocate(): string {
    const n = this.free.shift();
    if (n === undefined)
      throw new AddressPoolExhaustedError('no free pod address left in the loopback range');
    this.used.add(n);
    return toIp(n);
  }

  /** Takes a specific address (a pod that already has one, e.g. after a node-sim restart); false when taken. */
  claim(ip: string): boolean {
    const n = toInt(ip);
    const index = this.free.indexOf(n);
    if (index < 0) return false;
    this.free.splice(index, 1);
    this.used.add(n);
    return true;
  }

  /** Gives an address back. */
  release(ip: string): void {
    const n = toInt(ip);
    if (this.used.delete(n)) this.free.push(n);
  }

  get inUse(): number {
    return this.used.size;
  }
}
