import { toValue, type Context } from 'liquidjs';
import { OutputLines, outputText } from '../escaper.js';
import { TemplateValueError } from '../provenance.js';
import { objectRef } from '../snapshot.js';
import { stateOf } from '../state.js';
import { allocateSlots, serviceEndpoints, SliceRefused, type ServerSlot } from './servers.js';

type FilterThis = { context: Context };

function owner(ctx: Context, filter: string, list: unknown): string {
  const v: unknown = toValue(list);
  const watched = v !== null && typeof v === 'object' ? stateOf(ctx).listOwners.get(v) : undefined;
  if (watched === undefined) throw new TypeError(`${filter}: the lists must be resources.<name>`);
  return watched;
}

/**
 * `resources.endpointslices | server_slots: resources.services, ns, service, port, slots,
 * previous.backends[be].servers`: the server slots of a backend for a Service port (number or
 * name) — its serving endpoints, each on the slot it had in the deployed config where it had one.
 * A slice with a bad port or address fails the render, attributed to the slice.
 */
export function serverSlots(
  this: FilterThis,
  slicesList: unknown,
  servicesList: unknown,
  namespace: unknown,
  service: unknown,
  port: unknown,
  slots: unknown,
  deployed: unknown,
): ServerSlot[] {
  const ref = { namespace, service, port };
  return slotsOf(this.context, slicesList, servicesList, ref, Number(toValue(slots)), deployed);
}

/** The Service port a backend's servers come from. */
export interface ServicePortRef {
  readonly namespace?: unknown;
  readonly service?: unknown;
  readonly port?: unknown;
}

/** `server_slots` from typed code: the lists as the template passed them (`resources.<name>`). */
export function slotsOf(
  ctx: Context,
  slicesList: unknown,
  servicesList: unknown,
  ref: ServicePortRef,
  slots: number,
  deployed: unknown,
): ServerSlot[] {
  const slicesOf = owner(ctx, 'server_slots', slicesList);
  const servicesOf = owner(ctx, 'server_slots', servicesList);
  const keys = [outputText(ref.namespace), outputText(ref.service)];
  const { snapshot } = stateOf(ctx);
  let endpoints: Map<string, string>;
  try {
    endpoints = serviceEndpoints(
      snapshot.lookup(servicesOf, keys),
      snapshot.lookup(slicesOf, keys),
      outputText(ref.port),
    );
  } catch (err) {
    if (!(err instanceof SliceRefused)) throw err;
    throw new TemplateValueError('fail', err.message, objectRef(slicesOf, err.slice));
  }
  const previous: unknown = toValue(deployed);
  return allocateSlots(endpoints, slots, Array.isArray(previous) ? (previous as object[]) : []);
}

/**
 * `slots | server_lines: opts, cookie`: the `server` line of each slot (as
 * `server_slots` gives them), each after a newline and two spaces — an endpoint
 * `server srvN <address><opts>[ cookie srvN] weight <w>`, a free slot
 * `server srvN 0.0.0.0:1<opts>[ cookie srvN] weight 1 disabled` (cookie when `cookie != ""`).
 * One output instead of a Liquid loop; the escaper still checks every line.
 */
export function serverLines(
  slots: unknown,
  opts: unknown,
  cookie: unknown,
  cookiePrefix = '',
): OutputLines {
  const list: unknown = toValue(slots);
  const o = outputText(opts);
  const withCookie = toValue(cookie) !== '';
  const lines: string[] = [];
  for (const s of Array.isArray(list) ? (list as Partial<ServerSlot>[]) : []) {
    const name = outputText(s.name);
    const c = withCookie ? ` cookie ${cookiePrefix}${name}` : '';
    lines.push(
      s.address
        ? `server ${name} ${outputText(s.address)}${o}${c} weight ${outputText(s.weight)}`
        : `server ${name} 0.0.0.0:1${o}${c} weight 1 disabled`,
    );
  }
  return new OutputLines(lines, '\n  ');
}
