import { byCodeUnits, field, isNil, items, orDefault, path, str } from '../liquid-values.js';

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

const DIGITS = /^[0-9]+$/;

/** The Service port's name ("" when unnamed), found by number or name; undefined when absent. */
function portName(service: object, port: string): string | undefined {
  const byNumber = DIGITS.test(port);
  for (const sp of items(path(service, 'spec', 'ports'))) {
    const key = byNumber ? str(field(sp, 'port')) : field(sp, 'name');
    if (key === port) return str(orDefault(field(sp, 'name'), ''));
  }
  return undefined;
}

function sliceName(slice: object): string {
  return `${str(path(slice, 'metadata', 'namespace'))}/${str(path(slice, 'metadata', 'name'))}`;
}

/**
 * A serving endpoint: its address ("ip:port" or "[ip6]:port") and weight. Endpoints are ordered
 * by their entry "address weight"; `text` is that entry when the port is not a number (it may
 * hold a space, so the entry splits elsewhere), undefined when it is "address weight" exactly.
 */
interface Entry {
  readonly address: string;
  readonly weight: string;
  readonly text?: string;
}

/** The entry of `text` ("address weight"): as `split(' ')`, its first two words. */
function entryOf(text: string): Entry {
  const space = text.indexOf(' ');
  const end = text.indexOf(' ', space + 1);
  const address = text.slice(0, space);
  return { address, weight: text.slice(space + 1, end < 0 ? text.length : end), text };
}

/**
 * Entry order, without building entries that are "address weight": addresses and weights are
 * printable ASCII above the space, so such entries order as their address, then weight.
 */
function byEntry(a: Entry, b: Entry): number {
  if (a.text === undefined && b.text === undefined)
    return byCodeUnits(a.address, b.address) || byCodeUnits(a.weight, b.weight);
  return byCodeUnits(a.text ?? `${a.address} ${a.weight}`, b.text ?? `${b.address} ${b.weight}`);
}

/** The entries of one slice's serving endpoints on the port named `pname`. */
function sliceEntries(slice: object, pname: string, out: Entry[]): void {
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
  const v4 = type === 'IPv4';
  const re = v4 ? IPV4 : IPV6;
  // A port number prints without a space, so its entries split where they were joined.
  const plain = typeof port === 'number';
  const suffix = `:${str(port)}`;
  for (const ep of items(field(slice, 'endpoints'))) {
    const c = field(ep, 'conditions');
    let weight = '1';
    if (field(c, 'ready') === false) {
      if (field(c, 'serving') !== true || field(c, 'terminating') !== true) continue;
      weight = '0';
    }
    for (const addr of items(field(ep, 'addresses'))) {
      const a = str(addr);
      if (!re.test(a)) {
        const msg = `EndpointSlice ${sliceName(slice)}: ${a} is not an ${type} address`;
        throw new SliceRefused(slice, msg);
      }
      const address = v4 ? a + suffix : `[${a}]${suffix}`;
      out.push(plain ? { address, weight } : entryOf(`${address} ${weight}`));
    }
  }
}

/** Whether the entries are in entry order already (as one slice usually lists them). */
function inOrder(entries: readonly Entry[]): boolean {
  for (let i = 1; i < entries.length; i++)
    if (byEntry(entries[i - 1] as Entry, entries[i] as Entry) > 0) return false;
  return true;
}

/** Serving endpoints of a Service port: address → weight, in address order (0 wins a tie). */
export function serviceEndpoints(
  services: readonly object[],
  slices: readonly object[],
  port: string,
): Map<string, string> {
  const entries: Entry[] = [];
  for (const service of services) {
    const pname = portName(service, port);
    if (pname === undefined) continue;
    for (const slice of slices) sliceEntries(slice, pname, entries);
  }
  // In "address weight" order, so for an address listed twice weight 0 comes first (and wins);
  // an entry listed twice is the same either way.
  if (!inOrder(entries)) entries.sort(byEntry);
  const weights = new Map<string, string>();
  for (const e of entries) if (!weights.has(e.address)) weights.set(e.address, e.weight);
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
  // The endpoints not kept, in address order, for the free slots.
  const free = endpoints.keys();
  const out: ServerSlot[] = [];
  for (let i = 1; i <= count; i++) {
    const name = slotName(i);
    let address = kept.size > 0 ? kept.get(name) : undefined;
    if (address === undefined) {
      for (let next = free.next(); !next.done; next = free.next()) {
        if (used.has(next.value)) continue;
        address = next.value;
        break;
      }
    }
    if (address === undefined) out.push({ name });
    else out.push({ name, address, weight: endpoints.get(address) ?? '' });
  }
  return out;
}

const SLOT_NAMES: string[] = [];

/** `srv<i>`, made once per number (a backend's slots are named alike in every render). */
function slotName(i: number): string {
  return (SLOT_NAMES[i] ??= `srv${i}`);
}
