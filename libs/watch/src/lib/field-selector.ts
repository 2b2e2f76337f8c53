import { parseFieldPath, readFieldPath } from '#core';
import type { ResourceType } from './kube-api.js';
import type { KubeObject } from './ports.js';

/** One `field=value` or `field!=value` term of a field selector. */
export interface FieldTerm {
  readonly field: string;
  readonly negated: boolean;
  readonly value: string;
}

/**
 * Field selectors the API server accepts, per `group/plural` ('' group for core), beyond
 * metadata.name and metadata.namespace which every kind supports. A term outside this list is
 * applied client-side instead of being sent (a real API server answers 400 for it).
 */
const SERVER_FIELDS: Readonly<Record<string, readonly string[]>> = {
  '/pods': [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  '/events': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
  '/nodes': ['spec.unschedulable'],
  '/replicationcontrollers': ['status.replicas'],
  'apps/replicasets': ['status.replicas'],
  'batch/jobs': ['status.successful'],
  'certificates.k8s.io/certificatesigningrequests': ['spec.signerName'],
};

const EVERY_KIND = ['metadata.name', 'metadata.namespace'];

/** Parses `a=b,c!=d` (also `a==b`); undefined when malformed. */
export function parseFieldSelector(text: string): readonly FieldTerm[] | undefined {
  if (text.trim() === '') return [];
  const terms: FieldTerm[] = [];
  for (const raw of text.split(',')) {
    const m = /^\s*([A-Za-z0-9_.-]+)\s*(!=|==|=)\s*(.*?)\s*$/.exec(raw);
    if (!m) return undefined;
    terms.push({ field: m[1]!, negated: m[2] === '!=', value: m[3]! });
  }
  return terms;
}

/** True when the API server filters `type` by `field` itself. */
export function serverSupportsField(type: ResourceType, field: string): boolean {
  if (EVERY_KIND.includes(field)) return true;
  const group = type.apiVersion.includes('/') ? type.apiVersion.split('/')[0]! : '';
  return SERVER_FIELDS[`${group}/${type.plural}`]?.includes(field) ?? false;
}

/** Splits a selector into the part sent to the server and the part applied here. */
export function splitFieldSelector(
  type: ResourceType,
  terms: readonly FieldTerm[],
): { server: string | undefined; client: readonly FieldTerm[] } {
  const server = terms.filter((t) => serverSupportsField(type, t.field));
  const client = terms.filter((t) => !serverSupportsField(type, t.field));
  return { server: server.length > 0 ? formatFieldSelector(server) : undefined, client };
}

export function formatFieldSelector(terms: readonly FieldTerm[]): string {
  return terms.map((t) => `${t.field}${t.negated ? '!=' : '='}${t.value}`).join(',');
}

/** Applies terms to an object as the API server would (missing fields compare as ''). */
export function matchesFieldTerms(terms: readonly FieldTerm[], object: KubeObject): boolean {
  return terms.every((t) => {
    const path = parseFieldPath(t.field);
    const raw = path ? readFieldPath(object, path) : undefined;
    const value =
      typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean'
        ? String(raw)
        : raw === undefined || raw === null
          ? ''
          : JSON.stringify(raw);
    return t.negated ? value !== t.value : value === t.value;
  });
}
