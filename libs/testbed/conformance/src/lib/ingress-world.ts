import { randomBytes } from 'node:crypto';
import { generateCertificate, type KubeObject } from '#testbed/kube-sim';
import { echoApp, send, waitFor, type Reply, type Stack } from '#testbed/stack';
import { controllerSettled } from './settle.js';

/** Ingress backends referenced by a spec: the default backend and every path's Service. */
export function backendServices(spec: Record<string, unknown>): string[] {
  type Backend = { service?: { name?: string } };
  type Rule = { http?: { paths?: { backend?: Backend }[] } };
  const names = new Set<string>();
  const add = (b: Backend | undefined) => b?.service?.name && names.add(b.service.name);
  add(spec['defaultBackend'] as Backend | undefined);
  for (const rule of (spec['rules'] as Rule[] | undefined) ?? [])
    for (const p of rule.http?.paths ?? []) add(p.backend);
  return [...names].sort();
}

/** One scenario's state: its namespace, Ingress, the CA to trust and the last responses. */
export class IngressScenario {
  namespace = '';
  ingress = '';
  ca = '';
  reply: Reply | undefined;
  replies: Reply[] = [];
  private readonly services = new Set<string>();

  constructor(readonly stack: Stack) {}

  async newNamespace(): Promise<void> {
    this.namespace = `conformance-${randomBytes(4).toString('hex')}`;
    await this.stack.apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: this.namespace },
    });
  }

  async tlsSecret(name: string, host: string): Promise<void> {
    const tls = await generateCertificate({ commonName: host, dnsNames: [host], ipAddresses: [] });
    this.ca = tls.cert;
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    await this.stack.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: this.namespace, name },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
    });
  }

  /** Deploys an echo backend for every Service the Ingress names (as upstream does), then applies it. */
  async applyIngress(manifest: Record<string, unknown>): Promise<void> {
    const meta = manifest['metadata'] as { name: string };
    const spec = manifest['spec'] as Record<string, unknown>;
    this.ingress = meta.name;
    for (const svc of backendServices(spec)) {
      this.services.add(svc);
      await this.stack.apply(echoApp(this.namespace, svc, { ingress: meta.name }));
    }
    await this.stack.apply({
      ...manifest,
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { ...meta, namespace: this.namespace },
    });
    for (const svc of this.services) await this.readyPods(svc, 1);
  }

  /** Ready pods of one echo backend, waiting until there are `count`. */
  async readyPods(service: string, count: number) {
    return waitFor(
      `${count} ready pods of ${this.namespace}/${service}`,
      async () => {
        const pods = await this.stack.readyPods(this.namespace, { app: service });
        return pods.length === count ? pods : undefined;
      },
      120_000,
      200,
    );
  }

  /** Waits until the controller has rendered and deployed this scenario (backends `served` included). */
  async settled(served: boolean): Promise<void> {
    const addresses: string[] = [];
    if (served)
      for (const svc of this.services)
        for (const p of await this.stack.readyPods(this.namespace, { app: svc }))
          addresses.push(`${p.ip}:`);
    await waitFor(
      `the controller to deploy Ingress ${this.namespace}/${this.ingress} to every HAProxy pod`,
      async () =>
        (await controllerSettled(
          this.stack,
          { namespace: this.namespace, name: this.ingress },
          addresses,
        ))
          ? true
          : undefined,
      120_000,
      200,
    );
  }

  async scale(deployment: string, replicas: number): Promise<void> {
    const path = `/apis/apps/v1/namespaces/${this.namespace}/deployments/${deployment}`;
    const current = await this.stack.get<KubeObject & { spec: { replicas: number } }>(path);
    if (!current) throw new Error(`deployment ${this.namespace}/${deployment} not found`);
    await this.stack.apply({ ...current, spec: { ...current.spec, replicas } });
    await this.readyPods(deployment, replicas);
  }

  /** The Ingress's status.loadBalancer.ingress entries (IP or hostname). */
  async statusAddresses(): Promise<string[]> {
    const ing = await this.stack.get<{
      status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
    }>(`/apis/networking.k8s.io/v1/namespaces/${this.namespace}/ingresses/${this.ingress}`);
    return (ing?.status?.loadBalancer?.ingress ?? [])
      .map((a) => a.ip ?? a.hostname ?? '')
      .filter(Boolean);
  }

  /** One request to the first HAProxy pod: `host` as Host (and SNI; the pod address when empty), Go's User-Agent. */
  async request(method: string, scheme: string, host: string, path: string): Promise<Reply> {
    const [pod] = await this.stack.haproxyPods();
    if (!pod) throw new Error('no ready HAProxy pod');
    const https = scheme === 'https';
    const t = this.stack.topology;
    return send({
      address: pod.ip,
      port: https ? t.httpsPort : t.httpPort,
      host: host || pod.ip,
      path: path.startsWith('/') ? path : `/${path}`,
      method,
      headers: { 'user-agent': 'Go-http-client/1.1' },
      ...(https ? { tls: { ca: this.ca } } : {}),
    });
  }

  /** Removes everything the scenario created (node-sim stops its pods). */
  async cleanUp(): Promise<void> {
    if (!this.namespace) return;
    const ns = this.namespace;
    for (const path of [
      `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`,
      `/apis/apps/v1/namespaces/${ns}/deployments`,
      `/api/v1/namespaces/${ns}/services`,
      `/api/v1/namespaces/${ns}/secrets`,
    ]) {
      const list = await this.stack.get<{ items: KubeObject[] }>(path);
      for (const o of list?.items ?? []) await this.stack.delete(`${path}/${o.metadata.name}`);
    }
    await this.stack.delete(`/api/v1/namespaces/${ns}`);
  }
}
