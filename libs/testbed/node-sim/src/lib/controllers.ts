import type { V1Deployment, V1ReplicaSet } from '@kubernetes/client-node';
import { apiReason, apiStatus, type ClusterWatch } from './cluster.js';
import {
  planSlices,
  serviceKey,
  sliceServiceKey,
  slicesByService,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  type PodEndpoint,
} from './endpoint-slices.js';
import { stableJson } from './selectors.js';
import { controllerOf, planDeployment, planReplicaSet, podFor } from './workload-planning.js';

/** Pods a ReplicaSet created that the watch has not shown yet (the real controller's expectations). */
interface Expectation {
  readonly names: Set<string>;
  readonly since: number;
}

const EXPECTATION_TTL_MS = 30_000;

/** Status fields compared without timestamps, so unchanged status is not written again. */
function statusDigest(status: object | undefined): string {
  return stableJson(status ?? {}).replace(/"last(Update|Transition)Time":"[^"]*",?/g, '');
}

/**
 * The cluster controllers node-sim plays: Deployment, ReplicaSet, EndpointSlice and the garbage
 * collector (objects whose controlling owner is gone are deleted, as with background propagation).
 */
export class Controllers {
  private readonly expectations = new Map<string, Expectation>();

  constructor(
    private readonly watch: ClusterWatch,
    private readonly nodeName: string,
    private readonly log: (line: string) => void,
    private readonly retryLater: () => void,
  ) {}

  private async attempt(
    what: string,
    fn: () => Promise<unknown>,
    ignore: number[] = [],
  ): Promise<void> {
    try {
      await fn();
    } catch (e) {
      const code = apiStatus(e);
      if (ignore.includes(code)) return;
      if (code !== 409) this.log(`${what} failed: ${apiReason(e)}`);
      this.retryLater();
    }
  }

  /** Deployment → ReplicaSets and Deployment status. */
  async deployments(): Promise<void> {
    for (const d of this.watch.deployments.list()) {
      if (
        d.metadata?.deletionTimestamp != null ||
        d.spec?.template === undefined ||
        d.spec.selector === undefined
      )
        continue;
      await this.guard(`deployment ${d.metadata?.name}`, () => this.deployment(d));
    }
  }

  /** One object's failure is logged and retried; it never stops the others. */
  private async guard(what: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.log(`${what}: ${e instanceof Error ? e.message : String(e)}`);
      this.retryLater();
    }
  }

  private async deployment(d: V1Deployment): Promise<void> {
    const owned = this.watch.replicaSets
      .list(d.metadata?.namespace)
      .filter((rs) => controllerOf(rs)?.uid === d.metadata?.uid);
    const plan = planDeployment(d, owned);
    const ns = d.metadata!.namespace!;
    if (plan.create !== undefined) {
      const body = plan.create;
      await this.attempt(
        `create replicaset ${body.metadata?.name}`,
        () => this.watch.apps.createNamespacedReplicaSet({ namespace: ns, body }),
        [409],
      );
    }
    for (const { rs, replicas } of plan.scale) {
      const body: V1ReplicaSet = { ...rs, spec: { ...rs.spec!, replicas } };
      await this.attempt(`scale replicaset ${rs.metadata?.name}`, () =>
        this.watch.apps.replaceNamespacedReplicaSet({
          name: rs.metadata!.name!,
          namespace: ns,
          body,
        }),
      );
    }
    if (statusDigest(plan.status) !== statusDigest(d.status)) {
      const body: V1Deployment = { ...d, status: plan.status };
      await this.attempt(
        `status of deployment ${d.metadata?.name}`,
        () =>
          this.watch.apps.replaceNamespacedDeploymentStatus({
            name: d.metadata!.name!,
            namespace: ns,
            body,
          }),
        [404],
      );
    }
  }

  private pendingFor(rs: V1ReplicaSet): number {
    const uid = rs.metadata?.uid ?? '';
    const exp = this.expectations.get(uid);
    if (exp === undefined) return 0;
    for (const name of exp.names)
      if (this.watch.pods.get(name, rs.metadata?.namespace) !== undefined) exp.names.delete(name);
    if (exp.names.size === 0 || Date.now() - exp.since > EXPECTATION_TTL_MS) {
      this.expectations.delete(uid);
      return 0;
    }
    return exp.names.size;
  }

  /** ReplicaSet → Pods and ReplicaSet status. */
  async replicaSets(): Promise<void> {
    for (const rs of this.watch.replicaSets.list()) {
      if (rs.metadata?.deletionTimestamp != null || rs.spec?.template === undefined) continue;
      await this.guard(`replicaset ${rs.metadata?.name}`, () => this.replicaSet(rs));
    }
  }

  private async replicaSet(rs: V1ReplicaSet): Promise<void> {
    const ns = rs.metadata!.namespace!;
    const plan = planReplicaSet(rs, this.watch.pods.list(ns), this.pendingFor(rs));
    for (let i = 0; i < plan.create; i++) {
      const body = podFor(rs, this.nodeName);
      const exp = this.expectations.get(rs.metadata!.uid!) ?? {
        names: new Set<string>(),
        since: Date.now(),
      };
      exp.names.add(body.metadata!.name!);
      this.expectations.set(rs.metadata!.uid!, exp);
      await this.attempt(`create pod ${body.metadata?.name}`, () =>
        this.watch.core.createNamespacedPod({ namespace: ns, body }),
      );
    }
    for (const pod of plan.delete) {
      await this.attempt(
        `delete pod ${pod.metadata?.name}`,
        () => this.watch.core.deleteNamespacedPod({ name: pod.metadata!.name!, namespace: ns }),
        [404],
      );
    }
    if (statusDigest(plan.status) !== statusDigest(rs.status)) {
      const body: V1ReplicaSet = { ...rs, status: plan.status };
      await this.attempt(
        `status of replicaset ${rs.metadata?.name}`,
        () =>
          this.watch.apps.replaceNamespacedReplicaSetStatus({
            name: rs.metadata!.name!,
            namespace: ns,
            body,
          }),
        [404],
      );
    }
  }

  /** Services → EndpointSlices (discovery.k8s.io/v1) from the pods' addresses and conditions. */
  async endpointSlices(endpoints: readonly PodEndpoint[]): Promise<void> {
    const slices = this.watch.slices.list();
    const services = this.watch.services.list();
    const bySvc = slicesByService(slices);
    for (const svc of services) {
      const plan = planSlices(svc, endpoints, bySvc.get(serviceKey(svc)) ?? []);
      const ns = svc.metadata!.namespace!;
      for (const body of plan.create) {
        await this.attempt(
          `create endpointslice ${body.metadata?.name}`,
          () => this.watch.discovery.createNamespacedEndpointSlice({ namespace: ns, body }),
          [409],
        );
      }
      for (const body of plan.update) {
        await this.attempt(`update endpointslice ${body.metadata?.name}`, () =>
          this.watch.discovery.replaceNamespacedEndpointSlice({
            name: body.metadata!.name!,
            namespace: ns,
            body,
          }),
        );
      }
      for (const s of plan.delete) {
        await this.attempt(
          `delete endpointslice ${s.metadata?.name}`,
          () =>
            this.watch.discovery.deleteNamespacedEndpointSlice({
              name: s.metadata!.name!,
              namespace: ns,
            }),
          [404],
        );
      }
    }
    // Slices of a Service that is gone.
    const present = new Set(services.map(serviceKey));
    for (const s of slices) {
      const svc = s.metadata?.labels?.[SERVICE_NAME_LABEL];
      if (s.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY || svc === undefined) continue;
      if (present.has(sliceServiceKey(s))) continue;
      await this.attempt(
        `delete endpointslice ${s.metadata?.name}`,
        () =>
          this.watch.discovery.deleteNamespacedEndpointSlice({
            name: s.metadata!.name!,
            namespace: s.metadata!.namespace!,
          }),
        [404],
      );
    }
  }

  /**
   * The service load balancer (as k3s's): a LoadBalancer Service gets the node's address in
   * `status.loadBalancer.ingress` (node-sim's proxy listens there on the Service's ports); a Service
   * that stops being one has it removed.
   */
  async loadBalancers(nodeIP: string): Promise<void> {
    for (const svc of this.watch.services.list()) {
      if (svc.metadata?.deletionTimestamp != null) continue;
      const want = svc.spec?.type === 'LoadBalancer' ? [{ ip: nodeIP }] : undefined;
      const have = svc.status?.loadBalancer?.ingress;
      if (want === undefined && (have === undefined || have.length === 0)) continue;
      if (stableJson(want ?? []) === stableJson(have ?? [])) continue;
      const body = {
        ...svc,
        status: { ...svc.status, loadBalancer: want === undefined ? {} : { ingress: want } },
      };
      await this.attempt(
        `status of service ${svc.metadata?.name}`,
        () =>
          this.watch.core.replaceNamespacedServiceStatus({
            name: svc.metadata!.name!,
            namespace: svc.metadata!.namespace!,
            body,
          }),
        [404],
      );
    }
  }

  /** Deletes ReplicaSets and Pods whose controlling Deployment or ReplicaSet no longer exists. */
  async collectGarbage(): Promise<void> {
    const exists = (kind: string, ns: string, uid: string): boolean => {
      const list =
        kind === 'Deployment'
          ? this.watch.deployments.list(ns)
          : kind === 'ReplicaSet'
            ? this.watch.replicaSets.list(ns)
            : undefined;
      return list === undefined || list.some((o) => o.metadata?.uid === uid);
    };
    for (const rs of this.watch.replicaSets.list()) {
      const owner = controllerOf(rs);
      const ns = rs.metadata!.namespace!;
      if (
        owner !== undefined &&
        rs.metadata?.deletionTimestamp == null &&
        !exists(owner.kind, ns, owner.uid)
      ) {
        await this.attempt(
          `collect replicaset ${rs.metadata?.name}`,
          () =>
            this.watch.apps.deleteNamespacedReplicaSet({ name: rs.metadata!.name!, namespace: ns }),
          [404],
        );
      }
    }
    for (const pod of this.watch.pods.list()) {
      const owner = controllerOf(pod);
      const ns = pod.metadata!.namespace!;
      if (
        owner !== undefined &&
        pod.metadata?.deletionTimestamp == null &&
        !exists(owner.kind, ns, owner.uid)
      ) {
        await this.attempt(
          `collect pod ${pod.metadata?.name}`,
          () => this.watch.core.deleteNamespacedPod({ name: pod.metadata!.name!, namespace: ns }),
          [404],
        );
      }
    }
  }
}
