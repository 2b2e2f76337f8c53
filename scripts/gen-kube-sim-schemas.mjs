#!/usr/bin/env node
// Generates libs/testbed/kube-sim/src/lib/builtin-schemas.json: the field names and types of the built-in
// kinds kube-sim serves, read from the model classes of @kubernetes/client-node (generated from
// Kubernetes' own OpenAPI). kube-sim uses them to find unknown fields and wrong types in built-in
// objects as a real API server's strict decoder does. Run after upgrading client-node.
import { writeFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';

const kinds = {
  Namespace: 'V1Namespace',
  Service: 'V1Service',
  Endpoints: 'V1Endpoints',
  Secret: 'V1Secret',
  ConfigMap: 'V1ConfigMap',
  Pod: 'V1Pod',
  Event: 'CoreV1Event',
  ServiceAccount: 'V1ServiceAccount',
  Node: 'V1Node',
  EndpointSlice: 'V1EndpointSlice',
  Ingress: 'V1Ingress',
  IngressClass: 'V1IngressClass',
  NetworkPolicy: 'V1NetworkPolicy',
  Lease: 'V1Lease',
  Deployment: 'V1Deployment',
  ReplicaSet: 'V1ReplicaSet',
  PodDisruptionBudget: 'V1PodDisruptionBudget',
  Role: 'V1Role',
  RoleBinding: 'V1RoleBinding',
  ClusterRole: 'V1ClusterRole',
  ClusterRoleBinding: 'V1ClusterRoleBinding',
  ValidatingWebhookConfiguration: 'V1ValidatingWebhookConfiguration',
  CustomResourceDefinition: 'V1CustomResourceDefinition',
  StatefulSet: 'V1StatefulSet',
  Job: 'V1Job',
  CronJob: 'V1CronJob',
  PriorityClass: 'V1PriorityClass',
  ResourceQuota: 'V1ResourceQuota',
  DeleteOptions: 'V1DeleteOptions',
};

const types = {};
const primitive = new Set([
  'string',
  'number',
  'boolean',
  'Date',
  'any',
  'object',
  'IntOrString',
  'Array',
]);

// Date and V1MicroTime are timestamps, serialised as strings.
function typeRef(type, format) {
  if (type === 'number') return format === 'double' ? 'number' : 'integer';
  return type.replace(/\b(Date|V1MicroTime)\b/g, 'string');
}

function visit(name) {
  if (types[name] || primitive.has(name)) return;
  const cls = k8s[name];
  if (!cls?.attributeTypeMap) throw new Error(`no model ${name}`);
  types[name] = {};
  for (const a of cls.attributeTypeMap) {
    const ref = typeRef(a.type, a.format);
    types[name][a.baseName] = ref;
    for (const inner of ref.match(/[A-Z][A-Za-z0-9]+/g) ?? [])
      if (!primitive.has(inner)) visit(inner);
  }
}

for (const model of Object.values(kinds)) visit(model);
const out = new URL('../libs/kube-sim/src/lib/builtin-schemas.json', import.meta.url);
writeFileSync(out, `${JSON.stringify({ kinds, types })}\n`);
process.stdout.write(`${Object.keys(types).length} types\n`);
