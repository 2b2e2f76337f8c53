import {
  dns1035Label,
  dns1123Label,
  dns1123Subdomain,
  isIPv4,
  pathSegmentName,
  portName,
  wildcardDns1123Subdomain,
} from './dns-names.js';
import { isObject, type KubeObject } from './types.js';

/** A value as text in a message: strings as they are, anything else as JSON. */
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** One problem: the field path and the message as the real server writes it (field first). */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
  readonly reason?: string;
}

const q = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : text(v));
const invalid = (field: string, value: unknown, why: string): FieldProblem => ({
  field,
  reason: 'FieldValueInvalid',
  message: `${field}: Invalid value: ${q(value)}: ${why}`,
});
const required = (field: string, why = ''): FieldProblem => ({
  field,
  reason: 'FieldValueRequired',
  message: `${field}: Required value${why ? `: ${why}` : ''}`,
});
const unsupported = (field: string, value: unknown, allowed: readonly string[]): FieldProblem => ({
  field,
  reason: 'FieldValueNotSupported',
  message: `${field}: Unsupported value: ${q(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`,
});
const duplicate = (field: string, value: unknown): FieldProblem => ({
  field,
  reason: 'FieldValueDuplicate',
  message: `${field}: Duplicate value: ${q(value)}`,
});
const each = (field: string, value: string, msgs: string[]): FieldProblem[] =>
  msgs.map((m) => invalid(field, value, m));
const objects = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : [];

/** The name rule of a built-in kind (ValidateObjectMeta's nameFn), or undefined when it has none here. */
export function nameRule(kind: string, group: string): ((name: string) => string[]) | undefined {
  if (group === '' && kind === 'Namespace') return dns1123Label;
  if (group === '' && kind === 'Service') return dns1035Label;
  if (group === '' && kind === 'Event') return undefined;
  if (group === 'rbac.authorization.k8s.io') return pathSegmentName;
  return dns1123Subdomain;
}

function portNumber(field: string, v: unknown): FieldProblem[] {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535
    ? []
    : [invalid(field, v, 'must be between 1 and 65535, inclusive')];
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

/** core/v1 Service: type, ports (number, name, protocol, targetPort), as ValidateService does. */
export function validateService(o: KubeObject): FieldProblem[] {
  const out: FieldProblem[] = [];
  const spec = isObject(o.spec) ? o.spec : {};
  const type = spec.type ?? 'ClusterIP';
  if (!SERVICE_TYPES.includes(text(type))) out.push(unsupported('spec.type', type, SERVICE_TYPES));
  const ports = objects(spec.ports);
  const headless = spec.clusterIP === 'None';
  if (ports.length === 0 && !headless && type !== 'ExternalName') out.push(required('spec.ports'));
  if (type === 'ExternalName') {
    const name = spec.externalName;
    if (typeof name !== 'string' || name === '') out.push(required('spec.externalName'));
    else out.push(...each('spec.externalName', name, dns1123Subdomain(name.replace(/\.$/, ''))));
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((p, i) => {
    const f = `spec.ports[${i}]`;
    if (p.name === undefined || p.name === '') {
      if (ports.length > 1) out.push(required(`${f}.name`));
    } else if (typeof p.name === 'string') {
      out.push(...each(`${f}.name`, p.name, dns1123Label(p.name)));
      if (names.has(p.name)) out.push(duplicate(`${f}.name`, p.name));
      names.add(p.name);
    }
    out.push(...portNumber(`${f}.port`, p.port));
    const protocol = p.protocol ?? 'TCP';
    if (!PROTOCOLS.includes(text(protocol)))
      out.push(unsupported(`${f}.protocol`, protocol, PROTOCOLS));
    const key = `${text(p.port)}/${text(protocol)}`;
    if (keys.has(key)) out.push(duplicate(f, `${text(p.port)}/${text(protocol)}`));
    keys.add(key);
    const tp = p.targetPort;
    if (typeof tp === 'string') out.push(...each(`${f}.targetPort`, tp, portName(tp)));
    else if (tp !== undefined && tp !== 0) out.push(...portNumber(`${f}.targetPort`, tp));
  });
  return out;
}

/** core/v1 Secret: the keys a typed Secret must carry. */
export function validateSecret(o: KubeObject): FieldProblem[] {
  const data = isObject(o.data) ? o.data : {};
  const out: FieldProblem[] = [];
  for (const k of Object.keys(data)) {
    if (!/^[-._a-zA-Z0-9]+$/.test(k))
      out.push(
        invalid(
          `data[${k}]`,
          k,
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
        ),
      );
  }
  const need = (key: string): void => {
    if (!(key in data)) out.push(required(`data[${key}]`));
  };
  if (o.type === 'kubernetes.io/tls') {
    need('tls.crt');
    need('tls.key');
  } else if (o.type === 'kubernetes.io/dockerconfigjson') need('.dockerconfigjson');
  else if (o.type === 'kubernetes.io/basic-auth' && !('username' in data) && !('password' in data))
    out.push(required('data[username]'));
  else if (o.type === 'kubernetes.io/ssh-auth') need('ssh-privatekey');
  return out;
}

function hostProblems(field: string, host: string): FieldProblem[] {
  if (isIPv4(host)) return [invalid(field, host, 'must be a DNS name, not an IP address')];
  return each(
    field,
    host,
    host.includes('*') ? wildcardDns1123Subdomain(host) : dns1123Subdomain(host),
  );
}

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

function pathProblems(field: string, p: Record<string, unknown>): FieldProblem[] {
  const out: FieldProblem[] = [];
  const path = p.path;
  const pt = p.pathType;
  if (pt === undefined || pt === '') {
    out.push(required(`${field}.pathType`, 'pathType must be specified'));
  } else if (!PATH_TYPES.includes(text(pt))) {
    out.push(unsupported(`${field}.pathType`, pt, PATH_TYPES));
  }
  const pathField = `${field}.path`;
  if (typeof path === 'string' && path !== '') {
    if (!path.startsWith('/')) out.push(invalid(pathField, path, 'must be an absolute path'));
    else if (pt === 'Exact' || pt === 'Prefix') {
      for (const bad of ['//', '/./', '/../', '%2f', '%2F'])
        if (path.includes(bad)) out.push(invalid(pathField, path, `must not contain '${bad}'`));
      for (const bad of ['/..', '/.'])
        if (path.endsWith(bad)) out.push(invalid(pathField, path, `cannot end with '${bad}'`));
    }
  } else if (pt === 'Exact' || pt === 'Prefix') {
    out.push(invalid(pathField, path ?? '', 'must be an absolute path'));
  }
  out.push(...backendProblems(`${field}.backend`, p.backend));
  return out;
}

/** networking.k8s.io/v1 IngressBackend: exactly one of service and resource; a port name or number. */
function backendProblems(field: string, b: unknown): FieldProblem[] {
  const backend = isObject(b) ? b : {};
  const svc = isObject(backend.service) ? backend.service : undefined;
  const res = isObject(backend.resource) ? backend.resource : undefined;
  if (svc && res) return [invalid(field, '', 'cannot set both resource and service backends')];
  if (res) {
    const out: FieldProblem[] = [];
    for (const k of ['kind', 'name'])
      if (typeof res[k] !== 'string' || res[k] === '') out.push(required(`${field}.resource.${k}`));
    return out;
  }
  if (!svc) return [invalid(field, '', 'resource or service backend is required')];
  const out: FieldProblem[] = [];
  const name = svc.name;
  if (typeof name !== 'string' || name === '') out.push(required(`${field}.service.name`));
  else out.push(...each(`${field}.service.name`, name, dns1035Label(name)));
  const port = isObject(svc.port) ? svc.port : {};
  const hasName = typeof port.name === 'string' && port.name !== '';
  const hasNumber = port.number !== undefined && port.number !== 0;
  if (hasName && hasNumber) out.push(invalid(field, '', 'cannot set both port name & port number'));
  else if (hasName)
    out.push(
      ...each(`${field}.service.port.name`, port.name as string, portName(port.name as string)),
    );
  else if (hasNumber) out.push(...portNumber(`${field}.service.port.number`, port.number));
  else out.push(required(field, 'port name or number is required'));
  return out;
}

/** networking.k8s.io/v1 Ingress: hosts, paths, pathTypes and backends, as ValidateIngressSpec does. */
export function validateIngress(o: KubeObject): FieldProblem[] {
  const out: FieldProblem[] = [];
  const spec = isObject(o.spec) ? o.spec : {};
  const rules = objects(spec.rules);
  if (spec.defaultBackend === undefined && rules.length === 0)
    out.push(invalid('spec.rules', [], 'either `defaultBackend` or `rules` must be specified'));
  if (spec.defaultBackend !== undefined)
    out.push(...backendProblems('spec.defaultBackend', spec.defaultBackend));
  if (typeof spec.ingressClassName === 'string')
    out.push(
      ...each(
        'spec.ingressClassName',
        spec.ingressClassName,
        dns1123Subdomain(spec.ingressClassName),
      ),
    );
  rules.forEach((r, i) => {
    const f = `spec.rules[${i}]`;
    if (typeof r.host === 'string' && r.host !== '') out.push(...hostProblems(`${f}.host`, r.host));
    if (r.http === undefined) return;
    const http = isObject(r.http) ? r.http : {};
    const paths = objects(http.paths);
    if (paths.length === 0) out.push(required(`${f}.http.paths`));
    paths.forEach((p, j) => out.push(...pathProblems(`${f}.http.paths[${j}]`, p)));
  });
  objects(spec.tls).forEach((t, i) => {
    (Array.isArray(t.hosts) ? t.hosts : []).forEach((h: unknown, j: number) => {
      if (typeof h === 'string') out.push(...hostProblems(`spec.tls[${i}].hosts[${j}]`, h));
    });
  });
  return out;
}
