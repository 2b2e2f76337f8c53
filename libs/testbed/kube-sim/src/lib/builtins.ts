import { validateWebhookConfiguration } from './admission.js';
import { validateIngress, validateSecret, validateService } from './builtin-validation.js';
import { builtinSchema } from './builtin-schemas.js';
import * as p from './printers.js';
import { builtinScale } from './scale.js';
import type { FieldGetter, PrinterColumn, ResourceType } from './resource-type.js';

interface BuiltinSpec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  generation?: boolean;
  fields?: Record<string, FieldGetter>;
  columns?: readonly PrinterColumn[];
  validate?: ResourceType['validate'];
  scale?: boolean;
}

function builtin(s: BuiltinSpec): ResourceType {
  return {
    group: s.group,
    version: s.version,
    plural: s.plural,
    singular: s.kind.toLowerCase(),
    kind: s.kind,
    listKind: `${s.kind}List`,
    namespaced: s.namespaced,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    statusSubresource: s.status ?? false,
    ...(s.scale ? { scale: builtinScale } : {}),
    generation: s.generation ?? false,
    fieldSelectors: s.fields ?? {},
    columns: s.columns ?? p.defaultColumns,
    storageKey: `${s.group}/${s.plural}`,
    strategicMerge: true,
    decodeSchema: builtinSchema(s.kind),
    ...(s.validate ? { validate: s.validate } : {}),
  };
}

const all = ['all'];

/** Field selectors of core/v1 Event, as the real API server registers them. */
const eventFields: Record<string, FieldGetter> = {
  reason: p.field('reason'),
  reportingComponent: p.field('reportingComponent'),
  source: p.field('source.component'),
  type: p.field('type'),
};
for (const f of [
  'kind',
  'namespace',
  'name',
  'uid',
  'apiVersion',
  'resourceVersion',
  'fieldPath',
]) {
  eventFields[`involvedObject.${f}`] = p.field(`involvedObject.${f}`);
}

/** Every built-in kind kube-sim serves (what haptic, its chart and kubectl describe use). */
export function builtinTypes(): ResourceType[] {
  const core = (s: Omit<BuiltinSpec, 'group' | 'version'>) =>
    builtin({ group: '', version: 'v1', ...s });
  return [
    core({
      kind: 'Namespace',
      plural: 'namespaces',
      namespaced: false,
      shortNames: ['ns'],
      status: true,
      fields: { 'status.phase': p.field('status.phase') },
      columns: p.namespaceColumns,
    }),
    core({
      kind: 'Service',
      plural: 'services',
      namespaced: true,
      shortNames: ['svc'],
      categories: all,
      status: true,
      columns: p.serviceColumns,
      validate: validateService,
    }),
    core({
      kind: 'Endpoints',
      plural: 'endpoints',
      namespaced: true,
      shortNames: ['ep'],
      columns: p.endpointsColumns,
    }),
    core({
      kind: 'Secret',
      plural: 'secrets',
      namespaced: true,
      fields: { type: p.field('type') },
      columns: p.secretColumns,
      validate: validateSecret,
    }),
    core({
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespaced: true,
      shortNames: ['cm'],
      columns: p.configMapColumns,
    }),
    core({
      kind: 'Pod',
      plural: 'pods',
      namespaced: true,
      shortNames: ['po'],
      categories: all,
      status: true,
      columns: p.podColumns,
      fields: {
        'spec.nodeName': p.field('spec.nodeName'),
        'spec.restartPolicy': p.field('spec.restartPolicy'),
        'spec.schedulerName': p.field('spec.schedulerName'),
        'spec.serviceAccountName': p.field('spec.serviceAccountName'),
        'spec.hostNetwork': (o) => String(p.at(o, 'spec.hostNetwork') === true),
        'status.phase': p.field('status.phase'),
        'status.podIP': p.field('status.podIP'),
        'status.nominatedNodeName': p.field('status.nominatedNodeName'),
      },
    }),
    core({
      kind: 'Event',
      plural: 'events',
      namespaced: true,
      shortNames: ['ev'],
      fields: eventFields,
      columns: p.eventColumns,
    }),
    core({
      kind: 'ServiceAccount',
      plural: 'serviceaccounts',
      namespaced: true,
      shortNames: ['sa'],
      columns: p.serviceAccountColumns,
    }),
    core({
      kind: 'Node',
      plural: 'nodes',
      namespaced: false,
      shortNames: ['no'],
      status: true,
      fields: { 'spec.unschedulable': (o) => String(p.at(o, 'spec.unschedulable') === true) },
    }),
    builtin({
      group: 'discovery.k8s.io',
      version: 'v1',
      kind: 'EndpointSlice',
      plural: 'endpointslices',
      namespaced: true,
      columns: p.endpointSliceColumns,
    }),
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      kind: 'Ingress',
      plural: 'ingresses',
      namespaced: true,
      shortNames: ['ing'],
      status: true,
      generation: true,
      columns: p.ingressColumns,
      validate: validateIngress,
    }),
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      kind: 'IngressClass',
      plural: 'ingressclasses',
      namespaced: false,
      generation: true,
      columns: p.ingressClassColumns,
    }),
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      kind: 'NetworkPolicy',
      plural: 'networkpolicies',
      namespaced: true,
      shortNames: ['netpol'],
      generation: true,
      columns: p.networkPolicyColumns,
    }),
    builtin({
      group: 'coordination.k8s.io',
      version: 'v1',
      kind: 'Lease',
      plural: 'leases',
      namespaced: true,
      columns: p.leaseColumns,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      plural: 'deployments',
      namespaced: true,
      shortNames: ['deploy'],
      categories: all,
      status: true,
      generation: true,
      scale: true,
      columns: p.deploymentColumns,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      kind: 'StatefulSet',
      plural: 'statefulsets',
      namespaced: true,
      shortNames: ['sts'],
      categories: all,
      status: true,
      generation: true,
      scale: true,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      kind: 'ReplicaSet',
      plural: 'replicasets',
      namespaced: true,
      shortNames: ['rs'],
      categories: all,
      status: true,
      generation: true,
      scale: true,
      columns: p.replicaSetColumns,
      fields: { 'status.replicas': p.field('status.replicas') },
    }),
    builtin({
      group: 'batch',
      version: 'v1',
      kind: 'Job',
      plural: 'jobs',
      namespaced: true,
      categories: all,
      status: true,
      generation: true,
    }),
    builtin({
      group: 'batch',
      version: 'v1',
      kind: 'CronJob',
      plural: 'cronjobs',
      namespaced: true,
      shortNames: ['cj'],
      categories: all,
      status: true,
      generation: true,
    }),
    builtin({
      group: 'scheduling.k8s.io',
      version: 'v1',
      kind: 'PriorityClass',
      plural: 'priorityclasses',
      namespaced: false,
      shortNames: ['pc'],
      generation: true,
    }),
    builtin({
      group: '',
      version: 'v1',
      kind: 'ResourceQuota',
      plural: 'resourcequotas',
      namespaced: true,
      shortNames: ['quota'],
      status: true,
    }),
    builtin({
      group: 'policy',
      version: 'v1',
      kind: 'PodDisruptionBudget',
      plural: 'poddisruptionbudgets',
      namespaced: true,
      shortNames: ['pdb'],
      status: true,
      generation: true,
      columns: p.pdbColumns,
    }),
    ...['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].map((kind) =>
      builtin({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        kind,
        plural: `${kind.toLowerCase()}s`,
        namespaced: !kind.startsWith('Cluster'),
        columns: kind.endsWith('Binding') ? p.roleBindingColumns : p.createdAtColumns,
      }),
    ),
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      kind: 'ValidatingWebhookConfiguration',
      plural: 'validatingwebhookconfigurations',
      namespaced: false,
      generation: true,
      validate: validateWebhookConfiguration,
    }),
    builtin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      status: true,
      generation: true,
      categories: ['api-extensions'],
      columns: p.createdAtColumns,
    }),
  ];
}
