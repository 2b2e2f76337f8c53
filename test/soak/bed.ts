import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startHttpEcho, type RunningEcho } from '#testbed/echo';
import { getWithHost, root } from '../e2e/controller/support.js';
import { LEASE, LeaderBed, type Replica } from '../e2e/leader/pair.js';
import { portFreeOnAll } from '../e2e/support/bed.js';
import { assembleIngressLibrary } from '../hostile/library.js';
import {
  expected,
  hostOf,
  INGRESSES,
  NS,
  PROBE_PATHS,
  type ApiModel,
  type EndpointModel,
  type PathRule,
} from './model.js';

/** Echo pods the EndpointSlices point at (one port for all, as a slice names one port). */
export const POD_IPS = ['127.0.0.91', '127.0.0.92', '127.0.0.93', '127.0.0.94'] as const;
export const podName = (i: number): string => `echo-${i}`;
export const PODS = POD_IPS.map((_, i) => podName(i));

const GC_PROBE = pathToFileURL(join(root, 'test/soak/gc-probe.mjs')).href;

/**
 * The soak's bed: the leader pair's bed (kube-sim, two agents with real HAProxy, `haptic run`
 * replicas with their own kube-sim tokens) running the shipped Ingress library, plus four echo
 * pods. Replicas load the test-only GC probe so their heap can be read after a forced GC.
 */
export class SoakBed {
  private constructor(
    readonly bed: LeaderBed,
    readonly pods: readonly RunningEcho[],
    readonly podPort: number,
  ) {}

  static async start(haproxyBin: string): Promise<SoakBed> {
    const bed = await LeaderBed.start(haproxyBin);
    const podPort = await portFreeOnAll(POD_IPS);
    const pods: RunningEcho[] = [];
    for (const [i, ip] of POD_IPS.entries())
      pods.push(
        await startHttpEcho({
          mode: 'http',
          address: ip,
          httpPort: podPort,
          httpsPort: 0,
          context: { namespace: NS, ingress: '', service: '', pod: podName(i) },
        }),
      );
    const soak = new SoakBed(bed, pods, podPort);
    await soak.useIngressLibrary();
    return soak;
  }

  /** Replaces the bed's small template with the Ingress library (same pods, lease, credentials). */
  private async useIngressLibrary(): Promise<void> {
    const agents = this.bed.agents.map((a) => a.address);
    const [https, stats] = [await portFreeOnAll(agents), await portFreeOnAll(agents)];
    const library = parse(assembleIngressLibrary().text) as { spec: Record<string, unknown> };
    const spec = library.spec;
    delete spec['validationTests'];
    const extra = (spec['templatingSettings'] as { extraContext: Record<string, unknown> })
      .extraContext;
    Object.assign(extra, { http_port: this.bed.httpPort, https_port: https, stats_port: stats });
    const current = this.bed.sim.get(
      'haproxy-haptic.org/v1alpha1',
      'HAProxyTemplateConfig',
      'haptic',
      'haptic',
    )!;
    const old = current['spec'] as Record<string, unknown>;
    await this.bed.sim.apply({
      apiVersion: 'haproxy-haptic.org/v1alpha1',
      kind: 'HAProxyTemplateConfig',
      metadata: { namespace: 'haptic', name: 'haptic' },
      spec: {
        ...spec,
        credentialsSecretRef: old['credentialsSecretRef'],
        podSelector: old['podSelector'],
        dataplane: old['dataplane'],
        controller: {
          leaderElection: {
            leaseDuration: `${LEASE.leaseDuration}s`,
            renewDeadline: `${LEASE.renewDeadline}s`,
            retryPeriod: `${LEASE.retryPeriod * 1000}ms`,
          },
          reconcile: { debounce: '50ms', maxDelay: '500ms' },
        },
      },
    });
    await this.bed.sim.apply({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'haptic' },
      spec: { controller: 'haproxy-haptic.org/ingress-controller' },
    });
  }

  ipOf(pod: string): string {
    return POD_IPS[PODS.indexOf(pod)]!;
  }

  /** A replica whose heap can be read after a forced GC (`heapAfterGc`). */
  startReplica(): Promise<Replica> {
    const prior = process.env['NODE_OPTIONS'] ?? '';
    return this.bed.startReplica({
      NODE_OPTIONS: `${prior} --expose-gc --import ${GC_PROBE}`.trim(),
    });
  }

  /** The replica's heapUsed (bytes) right after two full collections in its process. */
  async heapAfterGc(r: Replica): Promise<number> {
    const seen = (r.proc.output().match(/"soakHeap"/g) ?? []).length;
    r.proc.child.kill('SIGUSR2');
    const deadline = Date.now() + 30_000;
    for (;;) {
      const lines = [...r.proc.output().matchAll(/\{"soakHeap":\{[^}]*\}\}/g)];
      if (lines.length > seen)
        return (JSON.parse(lines[lines.length - 1]![0]) as { soakHeap: { heapUsed: number } })
          .soakHeap.heapUsed;
      if (Date.now() > deadline) throw new Error(`${r.name} printed no heap after SIGUSR2`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  /** The API state as kube-sim holds it now, read back into the model's terms. */
  apiState(): ApiModel {
    const sim = this.bed.sim;
    const ingresses = new Map<number, { index: number; paths: PathRule[] }>();
    for (const o of sim.list('networking.k8s.io/v1', 'Ingress', NS)) {
      const index = Number(/^ing-(\d+)$/.exec(o.metadata.name ?? '')?.[1]);
      const spec = o['spec'] as {
        rules: {
          http: {
            paths: {
              path: string;
              pathType: 'Prefix' | 'Exact';
              backend: { service: { name: string } };
            }[];
          };
        }[];
      };
      const paths = spec.rules[0]!.http.paths.map((p) => ({
        path: p.path,
        pathType: p.pathType,
        service: p.backend.service.name,
      }));
      ingresses.set(index, { index, paths });
    }
    const services = new Set(sim.list('v1', 'Service', NS).map((s) => s.metadata.name ?? ''));
    const slices = new Map<string, EndpointModel[]>();
    for (const s of sim.list('discovery.k8s.io/v1', 'EndpointSlice', NS)) {
      const svc = s.metadata.labels?.['kubernetes.io/service-name'] ?? '';
      const eps = (
        s['endpoints'] as { targetRef: { name: string }; conditions: { ready: boolean } }[]
      ).map((e) => ({ pod: e.targetRef.name, ready: e.conditions.ready }));
      slices.set(svc, [...(slices.get(svc) ?? []), ...eps]);
    }
    return { ingresses, services, slices };
  }

  /**
   * Every HAProxy pod, every host (and one no Ingress names), every probe path: what it answers
   * against what the API state says. Returns the mismatches (empty: all served as expected).
   */
  async mismatches(m: ApiModel): Promise<string[]> {
    const out: string[] = [];
    const hosts = [...Array.from({ length: INGRESSES }, (_, i) => hostOf(i)), 'none.soak.example'];
    for (const a of this.bed.agents)
      for (const host of hosts)
        for (const path of PROBE_PATHS) {
          const want = expected(m, host, path);
          let got: { status: number; pod?: string };
          try {
            const r = await getWithHost(a.address, this.bed.httpPort, host, path);
            const pod = r.status === 200 ? (JSON.parse(r.body) as { pod?: string }).pod : undefined;
            got = pod === undefined ? { status: r.status } : { status: r.status, pod };
          } catch (e) {
            got = { status: 0, pod: e instanceof Error ? e.message : String(e) };
          }
          const ok =
            got.status === want.status &&
            (want.status !== 200 || (want.pods ?? []).includes(got.pod ?? ''));
          if (!ok)
            out.push(
              `${a.address} ${host}${path}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
            );
        }
    return out;
  }

  async stop(): Promise<void> {
    for (const p of this.pods) await p.close();
    await this.bed.stop();
  }
}
