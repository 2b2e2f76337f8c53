import { createHash } from 'node:crypto';

/** An inclusive range of pod ports, `from-to`. */
export interface PortRange {
  readonly from: number;
  readonly to: number;
}

/** Parses `gateway_service_port_range` (`20000-29999`); an error names the field. */
export function parsePortRange(text: string): PortRange {
  const m = /^(\d+)-(\d+)$/.exec(text.trim());
  const from = Number(m?.[1]);
  const to = Number(m?.[2]);
  if (!m || from < 1 || to > 65535 || from > to)
    throw new RangeError(
      `extraContext.gateway_service_port_range "${text}" must be "from-to" within 1-65535`,
    );
  return { from, to };
}

/**
 * Service-per-Gateway mode: each Gateway's listener ports get their own target ports inside the
 * shared HAProxy pods, handed out from the range in Gateway namespace/name order, then listener
 * port order — the same input always gives the same ports. Keys are "namespace/name".
 */
export function assignServicePorts(
  range: PortRange,
  gateways: ReadonlyMap<string, readonly number[]>,
): ReadonlyMap<string, ReadonlyMap<number, number>> {
  const out = new Map<string, Map<number, number>>();
  let next = range.from;
  for (const key of [...gateways.keys()].sort()) {
    const ports = [...new Set(gateways.get(key) ?? [])].sort((a, b) => a - b);
    const mine = new Map<number, number>();
    for (const port of ports) {
      if (next > range.to)
        throw new RangeError(
          `extraContext.gateway_service_port_range ${range.from}-${range.to} has too few ports for the Gateways' listeners`,
        );
      mine.set(port, next++);
    }
    out.set(key, mine);
  }
  return out;
}

export const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer'] as const;
export type GatewayServiceType = (typeof SERVICE_TYPES)[number];

/**
 * The Service of Gateway namespace/name (in the HAProxy pods' namespace, where its selector
 * finds them): `gw-<namespace>-<name>`, a DNS-1035 label of ≤ 63 chars (dots become dashes;
 * a longer one is cut and ends in a hash of the full name).
 */
export function gatewayServiceName(namespace: string, name: string): string {
  const full = `gw-${namespace}-${name}`.replace(/\./g, '-');
  if (full.length <= 63) return full;
  const hash = createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, 10);
  return `${full.slice(0, 52).replace(/-+$/, '')}-${hash}`;
}
