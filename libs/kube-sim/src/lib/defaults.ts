import type { ResourceType } from './resource-type.js';
import { isObject, type KubeObject } from './types.js';

/**
 * Defaults and allocations a real API server applies on create for the built-in kinds kube-sim
 * serves (a subset: what clients and printers read back). Returns a new object.
 */
export class Defaulter {
  private nextIp = 1;
  private nextNodePort = 30000;

  /** What a real server does on every write of some kinds (create and update). */
  normalize(t: ResourceType, obj: KubeObject): KubeObject {
    if (t.group === '' && t.kind === 'Secret' && isObject(obj.stringData)) {
      // stringData is write-only: merged into data (base64) and never stored.
      const data: Record<string, unknown> = isObject(obj.data) ? { ...obj.data } : {};
      for (const [k, v] of Object.entries(obj.stringData))
        data[k] = Buffer.from(String(v as string)).toString('base64');
      const { stringData: _s, ...rest } = obj;
      return { ...rest, data };
    }
    return obj;
  }

  apply(t: ResourceType, obj: KubeObject): KubeObject {
    if (t.group === '' && t.kind === 'Service') return this.service(obj);
    if (t.group === '' && t.kind === 'Namespace') {
      // The real server labels every namespace with its own name (NamespaceDefaultLabelName).
      const labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name! };
      return {
        ...obj,
        metadata: { ...obj.metadata, labels },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      };
    }

    if (t.group === '' && t.kind === 'Pod')
      return { ...obj, status: { phase: 'Pending', ...(isObject(obj.status) ? obj.status : {}) } };
    if (t.group === '' && t.kind === 'Secret' && obj.type === undefined)
      return { ...obj, type: 'Opaque' };
    if (
      t.group === 'apps' &&
      t.kind === 'Deployment' &&
      isObject(obj.spec) &&
      obj.spec.replicas === undefined
    ) {
      return { ...obj, spec: { ...obj.spec, replicas: 1 } };
    }
    return obj;
  }

  /** ClusterIP from 10.96.0.0/12 and NodePorts from 30000-32767, as kube-apiserver's allocators do. */
  private service(obj: KubeObject): KubeObject {
    const spec: Record<string, unknown> = isObject(obj.spec) ? { ...obj.spec } : {};
    spec.type ??= 'ClusterIP';
    spec.sessionAffinity ??= 'None';
    if (spec.type !== 'ExternalName' && spec.clusterIP === undefined) {
      const n = this.nextIp++;
      spec.clusterIP = `10.96.${(n >> 8) & 255}.${n & 255}`;
    }
    if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '')
      spec.clusterIPs ??= [spec.clusterIP];
    if (spec.type !== 'ExternalName') {
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
      spec.internalTrafficPolicy ??= 'Cluster';
    }
    const nodePorts = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
    if (Array.isArray(spec.ports)) {
      spec.ports = spec.ports.map((p: unknown) => {
        if (!isObject(p)) return p;
        const out: Record<string, unknown> = { protocol: 'TCP', ...p };
        out.targetPort ??= p.port;
        if (nodePorts && out.nodePort === undefined) out.nodePort = this.nextNodePort++;
        return out;
      });
    }
    return { ...obj, spec, status: { loadBalancer: {} } };
  }
}
