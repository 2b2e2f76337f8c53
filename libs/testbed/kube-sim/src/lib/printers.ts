import type { FieldGetter, PrinterColumn } from './resource-type.js';
import { isObject, type KubeObject } from './types.js';

/** Kubernetes' duration.HumanDuration: the AGE column's format ("5s", "3m2s", "4h", "12d"). */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.floor(hours / 24) % 365;
    return d === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${d}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** The AGE of a timestamp, or "<unknown>" as kubectl prints it. */
export function age(ts: unknown, now: number): string {
  if (typeof ts !== 'string') return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

/** Reads a dotted path from an object (undefined when any step is missing). */
export function at(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown, dflt = ''): string {
  return typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : dflt;
}

/** A column definition; `cell` computes the value. */
export function col(
  name: string,
  type: string,
  cell: (o: KubeObject, now: number) => unknown,
  priority = 0,
  description = '',
): PrinterColumn {
  return { name, type, priority, description, cell };
}

export const ageColumn = col(
  'Age',
  'string',
  (o, now) => age(o.metadata.creationTimestamp, now),
  0,
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);

/** "a,b,c + N more..." as kubectl abbreviates long lists. */
function joinMax(items: string[], max = 3): string {
  if (items.length === 0) return '<none>';
  if (items.length <= max) return items.join(',');
  return `${items.slice(0, max).join(',')} + ${items.length - max} more...`;
}

function servicePorts(o: KubeObject): string {
  const ports = arr(at(o, 'spec.ports')).map((p) => {
    const port = str(at(p, 'port'));
    const node = at(p, 'nodePort');
    const proto = str(at(p, 'protocol'), 'TCP');
    return node === undefined ? `${port}/${proto}` : `${port}:${str(node)}/${proto}`;
  });
  return ports.length ? ports.join(',') : '<none>';
}

function externalIp(o: KubeObject): string {
  const type = str(at(o, 'spec.type'), 'ClusterIP');
  const ext = arr(at(o, 'spec.externalIPs')).map((x) => str(x));
  const lb = arr(at(o, 'status.loadBalancer.ingress')).map(
    (i) => str(at(i, 'ip')) || str(at(i, 'hostname')),
  );
  if (type === 'ExternalName') return str(at(o, 'spec.externalName'));
  if (type === 'LoadBalancer') return [...lb, ...ext].join(',') || '<pending>';
  return ext.length ? ext.join(',') : '<none>';
}

function selectorString(v: unknown): string {
  if (!isObject(v)) return '<none>';
  const parts = Object.entries(v).map(([k, val]) => `${k}=${str(val)}`);
  return parts.length ? parts.join(',') : '<none>';
}

export const serviceColumns = [
  col('Type', 'string', (o) => str(at(o, 'spec.type'), 'ClusterIP')),
  col('Cluster-IP', 'string', (o) => str(at(o, 'spec.clusterIP'), '<none>')),
  col('External-IP', 'string', externalIp),
  col('Port(s)', 'string', servicePorts),
  ageColumn,
  col('Selector', 'string', (o) => selectorString(at(o, 'spec.selector')), 1),
];

function ingressHosts(o: KubeObject): string {
  const hosts = arr(at(o, 'spec.rules')).map((r) => str(at(r, 'host'), '*'));
  return hosts.length ? joinMax(hosts, 4) : '*';
}

function lbAddresses(o: KubeObject): string {
  const a = arr(at(o, 'status.loadBalancer.ingress')).map(
    (i) => str(at(i, 'ip')) || str(at(i, 'hostname')),
  );
  return a.join(',');
}

export const ingressColumns = [
  col('Class', 'string', (o) => str(at(o, 'spec.ingressClassName'), '<none>')),
  col('Hosts', 'string', ingressHosts),
  col('Address', 'string', lbAddresses),
  col('Ports', 'string', (o) => (arr(at(o, 'spec.tls')).length ? '80, 443' : '80')),
  ageColumn,
];

export const endpointSliceColumns = [
  col('AddressType', 'string', (o) => str(at(o, 'addressType'))),
  col('Ports', 'string', (o) => {
    const p = arr(at(o, 'ports')).map((x) => str(at(x, 'port'), '<unset>'));
    return p.length ? joinMax(p) : '<unset>';
  }),
  col('Endpoints', 'string', (o) => {
    const a = arr(at(o, 'endpoints')).flatMap((e) => arr(at(e, 'addresses')).map((x) => str(x)));
    return a.length ? joinMax(a) : '<unset>';
  }),
  ageColumn,
];

export const endpointsColumns = [
  col('Endpoints', 'string', (o) => {
    const out: string[] = [];
    for (const s of arr(at(o, 'subsets'))) {
      for (const a of arr(at(s, 'addresses'))) {
        for (const p of arr(at(s, 'ports'))) out.push(`${str(at(a, 'ip'))}:${str(at(p, 'port'))}`);
      }
    }
    return out.length ? joinMax(out) : '<none>';
  }),
  ageColumn,
];

function podReady(o: KubeObject): string {
  const statuses = arr(at(o, 'status.containerStatuses'));
  const ready = statuses.filter((s) => at(s, 'ready') === true).length;
  return `${ready}/${arr(at(o, 'spec.containers')).length}`;
}

function podStatus(o: KubeObject): string {
  if (o.metadata.deletionTimestamp) return 'Terminating';
  for (const s of arr(at(o, 'status.containerStatuses'))) {
    const waiting = str(at(s, 'state.waiting.reason'));
    if (waiting) return waiting;
  }
  return str(at(o, 'status.reason')) || str(at(o, 'status.phase'), 'Pending');
}

export const podColumns = [
  col('Ready', 'string', podReady),
  col('Status', 'string', podStatus),
  col('Restarts', 'string', (o) =>
    String(
      arr(at(o, 'status.containerStatuses')).reduce<number>(
        (n, s) => n + Number(at(s, 'restartCount') ?? 0),
        0,
      ),
    ),
  ),
  ageColumn,
  col('IP', 'string', (o) => str(at(o, 'status.podIP'), '<none>'), 1),
  col('Node', 'string', (o) => str(at(o, 'spec.nodeName'), '<none>'), 1),
];

const num = (path: string) => (o: KubeObject) => Number(at(o, path) ?? 0);

export const deploymentColumns = [
  col('Ready', 'string', (o) => `${num('status.readyReplicas')(o)}/${num('spec.replicas')(o)}`),
  col('Up-to-date', 'integer', num('status.updatedReplicas')),
  col('Available', 'integer', num('status.availableReplicas')),
  ageColumn,
];

export const replicaSetColumns = [
  col('Desired', 'integer', num('spec.replicas')),
  col('Current', 'integer', num('status.replicas')),
  col('Ready', 'integer', num('status.readyReplicas')),
  ageColumn,
];

const count = (path: string) => (o: KubeObject) => {
  const v = at(o, path);
  return isObject(v) ? Object.keys(v).length : 0;
};

export const configMapColumns = [
  col('Data', 'integer', (o) => count('data')(o) + count('binaryData')(o)),
  ageColumn,
];
export const secretColumns = [
  col('Type', 'string', (o) => str(at(o, 'type'))),
  col('Data', 'integer', count('data')),
  ageColumn,
];
export const namespaceColumns = [
  col('Status', 'string', (o) => str(at(o, 'status.phase'), 'Active')),
  ageColumn,
];
export const leaseColumns = [
  col('Holder', 'string', (o) => str(at(o, 'spec.holderIdentity'))),
  ageColumn,
];
export const ingressClassColumns = [
  col('Controller', 'string', (o) => str(at(o, 'spec.controller'))),
  col('Parameters', 'string', (o) =>
    at(o, 'spec.parameters') ? str(at(o, 'spec.parameters.name')) : '<none>',
  ),
  ageColumn,
];
export const eventColumns = [
  col('Last Seen', 'string', (o, now) =>
    age(at(o, 'lastTimestamp') ?? at(o, 'eventTime') ?? o.metadata.creationTimestamp, now),
  ),
  col('Type', 'string', (o) => str(at(o, 'type'))),
  col('Reason', 'string', (o) => str(at(o, 'reason'))),
  col(
    'Object',
    'string',
    (o) =>
      `${str(at(o, 'involvedObject.kind')).toLowerCase()}/${str(at(o, 'involvedObject.name'))}`,
  ),
  col('Message', 'string', (o) => str(at(o, 'message')).trim()),
];
export const defaultColumns = [ageColumn];

/** A field-selector getter for a dotted path (booleans and numbers compare as strings). */
export function field(path: string): FieldGetter {
  return (o) => {
    const v = at(o, path);
    return v === undefined || v === null ? undefined : str(v);
  };
}

export const pdbColumns = [
  col('Min Available', 'string', (o) => str(at(o, 'spec.minAvailable'), 'N/A')),
  col('Max Unavailable', 'string', (o) => str(at(o, 'spec.maxUnavailable'), 'N/A')),
  col('Allowed Disruptions', 'integer', num('status.disruptionsAllowed')),
  ageColumn,
];

export const networkPolicyColumns = [
  col('Pod-Selector', 'string', (o) => {
    const s = selectorString(at(o, 'spec.podSelector.matchLabels'));
    return s === '<none>' ? '<none>' : s;
  }),
  ageColumn,
];

export const serviceAccountColumns = [
  col('Secrets', 'string', (o) => String(arr(at(o, 'secrets')).length)),
  ageColumn,
];

/** "CREATED AT" as kubectl prints it for CRDs and RBAC roles (the timestamp itself). */
export const createdAtColumns = [
  col('Created At', 'date', (o) => o.metadata.creationTimestamp ?? null),
];

export const roleBindingColumns = [
  col('Role', 'string', (o) => `${str(at(o, 'roleRef.kind'))}/${str(at(o, 'roleRef.name'))}`),
  ageColumn,
  col('Users', 'string', (o) => subjects(o, 'User'), 1),
  col('Groups', 'string', (o) => subjects(o, 'Group'), 1),
  col('ServiceAccounts', 'string', (o) => subjects(o, 'ServiceAccount'), 1),
];

function subjects(o: KubeObject, kind: string): string {
  return arr(at(o, 'subjects'))
    .filter((s) => at(s, 'kind') === kind)
    .map((s) =>
      kind === 'ServiceAccount'
        ? `${str(at(s, 'namespace'))}/${str(at(s, 'name'))}`
        : str(at(s, 'name')),
    )
    .join(', ');
}
