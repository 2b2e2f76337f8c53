import type { V1ConfigMap, V1Container, V1Pod, V1Secret } from '@kubernetes/client-node';
import { PodUnsupportedError } from './node-sim.errors.js';

/** Reads Secrets and ConfigMaps from the watch caches (undefined when absent). */
export interface ObjectLookup {
  secret(namespace: string, name: string): V1Secret | undefined;
  configMap(namespace: string, name: string): V1ConfigMap | undefined;
}

/** What the downward API can see of a running pod that is not in its spec. */
export interface PodFacts {
  readonly podIP: string;
  readonly hostIP: string;
  readonly nodeName: string;
}

/** A Secret or ConfigMap key a container needs is missing: Kubernetes' CreateContainerConfigError. */
export class ContainerConfigError extends PodUnsupportedError {}

function bracketKey(path: string, prefix: string): string | undefined {
  const m = new RegExp(`^${prefix.replaceAll('.', '\\.')}\\['(.+)'\\]$`).exec(path);
  return m?.[1];
}

/** The value of a downward-API `fieldRef` for this pod. */
export function fieldRefValue(pod: V1Pod, fieldPath: string, facts: PodFacts): string {
  const meta = pod.metadata ?? {};
  switch (fieldPath) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'spec.nodeName':
      return facts.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? 'default';
    case 'status.podIP':
    case 'status.podIPs':
      return facts.podIP;
    case 'status.hostIP':
    case 'status.hostIPs':
      return facts.hostIP;
  }
  const label = bracketKey(fieldPath, 'metadata.labels');
  if (label !== undefined) return meta.labels?.[label] ?? '';
  const annotation = bracketKey(fieldPath, 'metadata.annotations');
  if (annotation !== undefined) return meta.annotations?.[annotation] ?? '';
  if (fieldPath === 'metadata.labels' || fieldPath === 'metadata.annotations') {
    const map = fieldPath === 'metadata.labels' ? meta.labels : meta.annotations;
    return Object.entries(map ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join('\n');
  }
  throw new PodUnsupportedError(`downward API field ${fieldPath} is not supported by node-sim`);
}

const QUANTITY_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
};

/** Parses a Kubernetes quantity (`512Mi`, `250m`, `2`) into a number. */
export function parseQuantity(q: string): number {
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q.trim());
  const unit = QUANTITY_UNITS[m?.[2] ?? 'x'];
  if (m === null || unit === undefined) throw new PodUnsupportedError(`cannot parse quantity ${q}`);
  return Number(m[1]) * unit;
}

/** A `resourceFieldRef` value: the container's limit (or request), else the node's capacity. */
export function resourceFieldValue(
  container: V1Container,
  resource: string,
  divisor = '1',
): string {
  const [kind, name] = resource.split('.') as [string, string | undefined];
  const source = kind === 'limits' ? container.resources?.limits : container.resources?.requests;
  const fallback = name === 'cpu' ? '2' : '8Gi';
  const raw = (source as Record<string, string> | undefined)?.[name ?? ''] ?? fallback;
  return String(Math.ceil(parseQuantity(String(raw)) / parseQuantity(divisor)));
}

/** Expands `$(VAR)` references the way the kubelet does (`$$` escapes, unknown names stay as they are). */
export function expandVars(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(
    /\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g,
    (whole, name: string | undefined) => (name === undefined ? '$' : (env[name] ?? whole)),
  );
}

function keyValue(
  kind: 'Secret' | 'ConfigMap',
  ref: { name?: string; key: string; optional?: boolean },
  namespace: string,
  lookup: ObjectLookup,
): string | undefined {
  const name = ref.name ?? '';
  const obj =
    kind === 'Secret' ? lookup.secret(namespace, name) : lookup.configMap(namespace, name);
  let value: string | undefined;
  if (kind === 'Secret') {
    const raw = (obj as V1Secret | undefined)?.data?.[ref.key];
    value = raw === undefined ? undefined : Buffer.from(raw, 'base64').toString('utf8');
  } else {
    value = (obj as V1ConfigMap | undefined)?.data?.[ref.key];
  }
  if (value === undefined && ref.optional !== true) {
    throw new ContainerConfigError(
      `${kind.toLowerCase()} "${name}" ${obj === undefined ? 'not found' : `has no key "${ref.key}"`}`,
    );
  }
  return value;
}

function envFromEntries(
  container: V1Container,
  namespace: string,
  lookup: ObjectLookup,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const prefix = source.prefix ?? '';
    if (source.secretRef !== undefined) {
      const s = lookup.secret(namespace, source.secretRef.name ?? '');
      if (s === undefined && source.secretRef.optional !== true)
        throw new ContainerConfigError(`secret "${source.secretRef.name}" not found`);
      for (const [k, v] of Object.entries(s?.data ?? {}))
        out[prefix + k] = Buffer.from(v, 'base64').toString('utf8');
    }
    if (source.configMapRef !== undefined) {
      const c = lookup.configMap(namespace, source.configMapRef.name ?? '');
      if (c === undefined && source.configMapRef.optional !== true)
        throw new ContainerConfigError(`configmap "${source.configMapRef.name}" not found`);
      for (const [k, v] of Object.entries(c?.data ?? {})) out[prefix + k] = v;
    }
  }
  return out;
}

/** The environment a container's process gets from its spec: envFrom, then env with `$(VAR)` expansion. */
export function containerEnv(
  pod: V1Pod,
  container: V1Container,
  facts: PodFacts,
  lookup: ObjectLookup,
): Record<string, string> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const env = envFromEntries(container, namespace, lookup);
  for (const e of container.env ?? []) {
    const from = e.valueFrom;
    let value: string | undefined;
    if (from === undefined) value = expandVars(e.value ?? '', env);
    else if (from.fieldRef !== undefined)
      value = fieldRefValue(pod, from.fieldRef.fieldPath, facts);
    else if (from.resourceFieldRef !== undefined) {
      value = resourceFieldValue(
        container,
        from.resourceFieldRef.resource,
        from.resourceFieldRef.divisor,
      );
    } else if (from.secretKeyRef !== undefined)
      value = keyValue('Secret', from.secretKeyRef, namespace, lookup);
    else if (from.configMapKeyRef !== undefined)
      value = keyValue('ConfigMap', from.configMapKeyRef, namespace, lookup);
    if (value !== undefined) env[e.name] = value;
  }
  return env;
}
