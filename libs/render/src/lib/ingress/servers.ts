import { byCodeUnits, field, isNil, items, orDefault, path, str } from './liquid-values.js';

/** One server slot: an endpoint (`address` "ip:port" or "[ip6]:port", weight) or free (no address). */
export interface ServerSlot {
  readonly name: string;
  readonly address?: string;
  readonly weight?: string;
}

/** An EndpointSlice refused while reading it (bad port or address). */
export class SliceRefused extends Error {
  constructor(
    readonly slice: object,
    message: string,
  ) {
    super(message);
  }
}

const IPV4 =
  /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])([.](25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
const IPV6 = /^[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}$/;

/** The Service port's name ("" when unnamed), found by number or name; undefined when absent. */
function portName(service: object, port: string): string | undefined {
  const byNumber = /^[0-9]+$/.test(port);
  for (const sp of items(path(service, 'spec', 'ports'))) {
    const key = byNumber ? str(field(sp, 'port')) : field(sp, 'name');
    if (key === port) return str(orDefault(field(sp, 'name'), ''));
  }
  return undefined;
}

function sliceName(slice: object): string {
  return `${str(path(slice, 'metadata', 'namespace'))}/${str(path(slice, 'metadata', 'name'))}`;
}

/** "address weight" entries of one slice's serving endpoints on the port named `pname`. */
function sliceEntries(slice: object, pname: string, out: string[]): void {
  const type = field(slice, 'addressType');
  if (type !== 'IPv4' && type !== 'IPv6') return;
  let port: unknown;
  for (const p of items(field(slice, 'ports'))) {
    if (str(orDefault(field(p, 'name'), '')) === pname) port = field(p, 'port');
  }
  if (isNil(port)) return;
  if (Number(port) < 1 || Number(port) > 65535) {
    throw new SliceRefused(slice, `EndpointSlice ${sliceName(slice)}: port is not 1-65535`);
  }
  for (const ep of items(field(slice, 'endpoints'))) {
    const c = field(ep, 'conditions');
    let weight: number | undefined = 1;
    if (field(c, 'ready') === false) {
      weight = field(c, 'serving') === true && field(c, 'terminating') === true ? 0 : undefined;
    }
    if (weight === undefined) continue;
    for (const addr of items(field(ep, 'addresses'))) {
      const a = str(addr);
      if (!(type === 'IPv4' ? IPV4 : IPV6).test(a)) {
        const msg = `EndpointSlice ${sliceName(slice)}: ${a} is not an ${type} address`;
        throw new SliceRefused(slice, msg);
      }
      out.push(`${type === 'IPv4' ? a : `[${a}]`}:${str(port)} ${weight}`);
    }
  }
}

/** Serving endpoints of a Service port: address → weight, in address order (0 wins a tie). */
export function serviceEndpoints(
  services: readonly object[],
  slices: readonly object[],
  port: string,
): Map<string, string> {
  const entries: string[] = [];
  for (const service of services) {
    const pname = portName(service, port);
    if (pname === undefined) continue;
    for (const slice of slices) sliceEntries(slice, pname, entries);
  }
  // In "address weight" order, so for an address listed twice weight 0 comes first (and wins);
  // an entry listed twice is the same either way.
  if (entries.length > 1) entries.sort(byCodeUnits);
  const weights = new Map<string, string>();
  for (const e of entries) {
    // As `split(' ')` took the first two words (a port written with a space is not refused).
    const space = e.indexOf(' ');
    const end = e.indexOf(' ', space + 1);
    const address = e.slice(0, space);
    if (!weights.has(address)) weights.set(address, e.slice(space + 1, end < 0 ? e.length : end));
  }
  return weights;
}

/** A deployed server of the backend (`previous.backends.<name>.servers`). */
export interface DeployedServer {
  readonly name?: unknown;
  readonly address?: unknown;
}

/**
 * Server slots srv1..srvN of a backend: N is `slots` (at least the deployed count), doubled (up to
 * 12 times) until every endpoint fits; an endpoint keeps the slot it had in the deployed config,
 * new ones take free slots in address order; the rest are free.
 */
export function allocateSlots(
  endpoints: ReadonlyMap<string, string>,
  slots: number,
  deployed: readonly DeployedServer[],
): ServerSlot[] {
  let count = deployed.length > slots ? deployed.length : slots;
  for (let i = 0; i < 12 && count < endpoints.size; i++) count *= 2;
  const kept = new Map<string, string>();
  const used = new Set<string>();
  for (const ps of deployed) {
    const address = str(ps.address);
    if (endpoints.has(address) && !used.has(address)) {
      kept.set(str(ps.name), address);
      used.add(address);
    }
  }
  const free = [...endpoints.keys()].filter((k) => !used.has(k));
  let next = 0;
  const out: ServerSlot[] = [];
  for (let i = 1; i <= count; i++) {
    const name = `srv${i}`;
    const address = kept.get(name) ?? free[next++];
    if (address === undefined) out.push({ name });
    else out.push({ name, address, weight: endpoints.get(address) ?? '' });
  }
  return out;
}
