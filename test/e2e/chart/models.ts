// Validates rendered manifests with the kubernetes-models classes (the OpenAPI schemas of the
// Kubernetes API and the Prometheus operator's CRDs, checked with ajv).
import type { Manifest } from './helm.js';

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

/** Where the model of an apiVersion lives (undefined: no model; the caller decides). */
function modulePath(apiVersion: string): string | undefined {
  if (apiVersion === 'v1') return 'kubernetes-models/v1';
  if (apiVersion.startsWith('monitoring.coreos.com/'))
    return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  const [group] = apiVersion.split('/');
  if (group !== undefined && (group.endsWith('.k8s.io') || !group.includes('.')))
    return `kubernetes-models/${apiVersion}`;
  return undefined;
}

/** The model class of a manifest, or undefined when there is none (custom resources). */
export async function modelFor(m: Manifest): Promise<ModelClass | undefined> {
  const path = modulePath(m.apiVersion);
  if (path === undefined) return undefined;
  const mod = (await import(path)) as Record<string, ModelClass | undefined>;
  const model = mod[m.kind];
  if (model === undefined) throw new Error(`${path} has no model for kind ${m.kind}`);
  return model;
}

/** Validation problems of one manifest ('' when valid). */
export async function problems(m: Manifest): Promise<string> {
  const Model = await modelFor(m);
  if (Model === undefined) return `no model for ${m.apiVersion} ${m.kind}`;
  try {
    new Model(m).validate();
    return '';
  } catch (e) {
    return `${m.kind} ${m.metadata.name}: ${(e as Error).message}`;
  }
}
