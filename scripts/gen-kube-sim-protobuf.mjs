#!/usr/bin/env node
// Generates libs/testbed/kube-sim/src/lib/protobuf-fields.json: for every message type reachable from the
// kinds kube-sim decodes from protobuf, its field numbers, JSON names and types, read from
// Kubernetes' public generated.proto files (k8s.io/api and k8s.io/apimachinery). kube-sim decodes
// protobuf request bodies generically from that table (libs/testbed/kube-sim/src/lib/protobuf.ts).
//
// Usage: node scripts/gen-kube-sim-protobuf.mjs <dir>
//   where <dir>/k8s.io/api/... and <dir>/k8s.io/apimachinery/... hold the generated.proto files
//   of a Kubernetes release (the layout of their import statements).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import protobuf from 'protobufjs';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write(
    'usage: gen-kube-sim-protobuf.mjs <dir with k8s.io/api and k8s.io/apimachinery>\n',
  );
  process.exit(2);
}

/** apiVersion/kind → the protobuf message of the kind (what `kubectl create` and helm send). */
const kinds = {
  'v1/Namespace': 'k8s.io.api.core.v1.Namespace',
  'v1/Service': 'k8s.io.api.core.v1.Service',
  'v1/Secret': 'k8s.io.api.core.v1.Secret',
  'v1/ConfigMap': 'k8s.io.api.core.v1.ConfigMap',
  'v1/ServiceAccount': 'k8s.io.api.core.v1.ServiceAccount',
  'v1/ResourceQuota': 'k8s.io.api.core.v1.ResourceQuota',
  'v1/DeleteOptions': 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'apps/v1/Deployment': 'k8s.io.api.apps.v1.Deployment',
  'batch/v1/Job': 'k8s.io.api.batch.v1.Job',
  'batch/v1/CronJob': 'k8s.io.api.batch.v1.CronJob',
  'networking.k8s.io/v1/Ingress': 'k8s.io.api.networking.v1.Ingress',
  'rbac.authorization.k8s.io/v1/Role': 'k8s.io.api.rbac.v1.Role',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'k8s.io.api.rbac.v1.RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'k8s.io.api.rbac.v1.ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'k8s.io.api.rbac.v1.ClusterRoleBinding',
  'policy/v1/PodDisruptionBudget': 'k8s.io.api.policy.v1.PodDisruptionBudget',
  'scheduling.k8s.io/v1/PriorityClass': 'k8s.io.api.scheduling.v1.PriorityClass',
};

const files = [
  'core/v1',
  'apps/v1',
  'batch/v1',
  'networking/v1',
  'rbac/v1',
  'policy/v1',
  'scheduling/v1',
].map((g) => join(dir, 'k8s.io/api', g, 'generated.proto'));

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => (target.startsWith(dir) ? target : join(dir, target));
root.loadSync([...files, join(dir, 'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto')], {
  keepCase: true,
});
root.resolveAll();

/** Messages kube-sim converts specially (they are JSON strings, numbers or raw JSON). */
const special = new Set([
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  'k8s.io.apimachinery.pkg.api.resource.Quantity',
  'k8s.io.apimachinery.pkg.runtime.RawExtension',
]);

/** The JSON names of a type's fields in client-node's models (V1<Name>), if there is a model. */
function modelFields(t) {
  const group = t.fullName.split('.').slice(-3, -1).join('.'); // e.g. core.v1
  const name = t.name;
  const cls = k8s[`V1${name}`] ?? (group === 'core.v1' ? k8s[`CoreV1${name}`] : undefined);
  return cls?.attributeTypeMap ? new Set(cls.attributeTypeMap.map((a) => a.baseName)) : undefined;
}

/**
 * Go structs embedded inline (`json:",inline"`, e.g. IngressRule.ingressRuleValue,
 * Volume.volumeSource) are one field in protobuf but flattened in JSON: a message field whose
 * name the JSON model lacks while it has every field of the embedded message.
 */
function inline(parent, f) {
  if (!f.resolvedType?.fieldsArray) return false;
  const json = modelFields(parent);
  if (!json || json.has(f.name)) return false;
  return f.resolvedType.fieldsArray.every((x) => json.has(x.name));
}

const types = {};
function visit(fullName) {
  if (types[fullName] || special.has(fullName)) return;
  const t = root.lookupType(fullName);
  const fields = {};
  types[fullName] = fields;
  for (const f of t.fieldsArray) {
    const ref = f.resolvedType ? f.resolvedType.fullName.slice(1) : f.type;
    // [json name, type, label]: label is "repeated", "map" (string keys), "inline" (an embedded
    // struct whose fields JSON flattens into this one) or "".
    const label = f.map ? 'map' : f.repeated ? 'repeated' : inline(t, f) ? 'inline' : '';
    fields[f.id] = [f.name, ref, label];
    if (f.resolvedType) visit(ref);
  }
}
for (const m of Object.values(kinds)) visit(m);

const out = new URL('../libs/kube-sim/src/lib/protobuf-fields.json', import.meta.url);
writeFileSync(out, `${JSON.stringify({ kinds, types })}\n`);
process.stdout.write(`${Object.keys(types).length} message types\n`);
