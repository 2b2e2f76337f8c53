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

/** The Service of Gateway `name` (in the Gateway's namespace): a DNS-1035 label of ≤ 63 chars. */
export function gatewayServiceName(name: string): string {
  const full = `${name}-haptic`;
  if (full.length <= 63) return full;
  let h = 0;
  for (const c of name) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return `${name.slice(0, 47).replace(/[-.]+$/, '')}-${h.toString(16).padStart(8, '0')}`.replace(
    /\./g,
    '-',
  );
}
