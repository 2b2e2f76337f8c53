import type { ResourceType } from './resource-type.js';
import { isObject, type KubeObject } from './types.js';

/**
 * Defaults and allocations a real API server applies on create for the built-in kinds kube-sim
 * serves (a subset: what clients and printers read back). Returns a new object.
 */
export class Defaulter {
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

  /** Service defaults; cluster IPs and node ports come from the allocator (service-alloc.ts). */
  private service(obj: KubeObject): KubeObject {
    const spec: Record<string, unknown> = isObject(obj.spec) ? { ...obj.spec } : {};
    spec.type ??= 'ClusterIP';
    spec.sessionAffinity ??= 'None';
    if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
    if (spec.type !== 'ExternalName') {
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
      spec.internalTrafficPolicy ??= 'Cluster';
    }
    if (Array.isArray(spec.ports)) {
      spec.ports = spec.ports.map((p: unknown) => {
        if (!isObject(p)) return p;
        const out: Record<string, unknown> = { protocol: 'TCP', ...p };
        out.targetPort ??= p.port;
        return out;
      });
    }
    return { ...obj, spec, status: isObject(obj.status) ? obj.status : { loadBalancer: {} } };
  }
}
