/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- API objects are read loosely */
// The probes of the chart's install test (install.spec.ts): requests through the HAProxy node
// port, the controllers' leader flags, the webhook asked directly and through kubectl, and the
// load loops that show a rollout drops nothing. They read the stack from `bed` when called (the
// stack starts in the spec's beforeAll).
import { execFile } from 'node:child_process';
import { request } from 'node:https';
import { stringify } from 'yaml';
import type { KubeObject } from '#testbed/kube-sim';
import { ingressAdmissionReview } from '#webhook';
import { ECHO_SERVICE_PORT, send, waitFor, type PodAddress, type Stack } from '#testbed/stack';
import { kubectl } from './helm.js';

export const NS = 'haptic';
export const APP = 'apps';
export const HOST = 'chart.example';
export const WEBHOOK_PORT = 9443; // the chart's default controller.ports.webhook

/** The stack under test and the node port entry of the HAProxy Service. */
export interface InstallBed {
  stack: Stack;
  entry: { address: string; port: number };
}

/** An Ingress in the apps namespace with these Prefix paths. */
export const ingress = (
  paths: { path: string; service: string }[],
  {
    name = 'site',
    host = HOST,
    annotations = {},
  }: { name?: string; host?: string; annotations?: Record<string, string> } = {},
): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: APP, name, annotations },
  spec: {
    rules: [
      {
        host,
        http: {
          paths: paths.map((p) => ({
            path: p.path,
            pathType: 'Prefix',
            backend: { service: { name: p.service, port: { number: ECHO_SERVICE_PORT } } },
          })),
        },
      },
    ],
  },
});

/** The probes, bound to `bed`. */
export function installProbes(bed: InstallBed) {
  const get = (path: string): Promise<any> => bed.stack.get(path);
  const controllerDeployment = () =>
    get(`/apis/apps/v1/namespaces/${NS}/deployments/haptic-controller`);
  const lease = () => get(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/haptic-controller`);
  /** The service an echo pod says it belongs to, for one request through the node port. */
  const through = async (path = '/'): Promise<string | undefined> => {
    const r = await send({ ...bed.entry, host: HOST, path, timeoutMs: 3000 });
    return r.status === 200 ? (JSON.parse(r.body) as { service: string }).service : undefined;
  };
  const leaderFlags = async (pods: readonly PodAddress[]): Promise<number[]> =>
    Promise.all(
      pods.map(async (p) => {
        const text = await (
          await fetch(`http://${p.ip}:${bed.stack.topology.metricsPort}/metrics`)
        ).text();
        return Number(/^haptic_leader (\d+)/m.exec(text)?.[1] ?? NaN);
      }),
    );

  /** `kubectl apply -f -` of one object, as a user runs it (exit code and stderr). */
  const kubectlApply = (o: KubeObject) =>
    new Promise<{ code: number; err: string }>((resolve) => {
      const child = execFile(
        kubectl(),
        ['apply', '-f', '-', '--kubeconfig', bed.stack.kubeconfigPath],
        { timeout: 60_000 },
        (e, _out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, err }),
      );
      child.stdin!.end(stringify(o, { lineWidth: 0 }));
    });
  /**
   * One AdmissionReview POSTed to a controller pod's own webhook port, verified as the API server
   * verifies it: the caBundle of the installed webhook configuration, the Service's DNS name.
   */
  const reviewAt = (ip: string, caBundle: string, object: KubeObject) =>
    new Promise<{ uid: string; allowed: boolean }>((resolve, reject) => {
      const uid = `direct-${ip}`;
      const body = JSON.stringify(ingressAdmissionReview(uid, 'CREATE', object));
      const req = request(
        `https://${ip}:${WEBHOOK_PORT}/validate`,
        {
          method: 'POST',
          ca: Buffer.from(caBundle, 'base64').toString('utf8'),
          servername: `haptic-controller.${NS}.svc`,
          headers: { 'content-type': 'application/json' },
          timeout: 15_000,
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            try {
              const r = JSON.parse(text).response;
              resolve({ uid: r.uid, allowed: r.allowed });
            } catch (e) {
              reject(
                new Error(`${ip}: HTTP ${res.statusCode}: ${text.slice(0, 200)} (${String(e)})`),
              );
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${ip}: timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  /**
   * Edits one Ingress again and again through the API (so through the webhook, failurePolicy
   * Fail) while something else happens: every write must be admitted.
   */
  const admissionLoop = () => {
    const results = { admitted: 0, refused: [] as string[] };
    let running = true;
    const done = (async () => {
      const deadline = Date.now() + 240_000;
      let n = 0;
      while (running && Date.now() < deadline) {
        n++;
        try {
          await bed.stack.apply(
            ingress([{ path: '/', service: 'blue' }], {
              name: 'probe',
              host: `probe.${HOST}`,
              annotations: { 'haptic.test/edit': String(n) },
            }),
          );
          results.admitted++;
        } catch (e) {
          results.refused.push(`${new Date().toISOString()} ${(e as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      return results;
    })();
    return { done, stop: () => (running = false) };
  };

  /** Addresses of the ready HAProxy endpoints in the Service's EndpointSlices (where kube-proxy sends traffic). */
  const readyEndpoints = async (): Promise<string[]> => {
    const slices = await get(
      `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=kubernetes.io/service-name%3Dhaptic-haproxy`,
    );
    return slices.items.flatMap((sl: any) =>
      (sl.endpoints ?? [])
        .filter((e: any) => e.conditions?.ready !== false && e.conditions?.terminating !== true)
        .flatMap((e: any) => e.addresses as string[]),
    );
  };
  /**
   * Waits until every ready HAProxy pod, asked at its own address, answers `path` from `service`:
   * a new route reaches the pods one after another (each validates and reloads on its own), so a
   * request through the node port right after the first answer may still meet a pod that has not
   * caught up. A test of "no dropped request" starts from a converged fleet.
   */
  const servedByEveryPod = (path: string, service: string) =>
    waitFor(`${service} at ${path} from every HAProxy pod`, async () => {
      const pods = await bed.stack.haproxyPods();
      const seen = await Promise.all(
        pods.map(async (p) => {
          const r = await send({
            address: p.ip,
            port: bed.stack.topology.httpPort,
            host: HOST,
            path,
            timeoutMs: 3000,
          }).catch(() => undefined);
          return r?.status === 200 ? (JSON.parse(r.body) as { service: string }).service : '';
        }),
      );
      return pods.length === 2 && seen.every((x) => x === service) ? true : undefined;
    });
  /** One request after another through the node port (bounded: 4,000 at most, 4 minutes at most). */
  const steadyLoop = () => {
    const results = { ok: 0, failed: [] as string[] };
    let running = true;
    const done = (async () => {
      const deadline = Date.now() + 240_000;
      while (running && Date.now() < deadline && results.ok + results.failed.length < 4000) {
        try {
          const r = await send({ ...bed.entry, host: HOST, timeoutMs: 3000 });
          const seen = r.status === 200 ? (JSON.parse(r.body) as { service: string }).service : '';
          if (seen === 'blue') results.ok++;
          else
            results.failed.push(
              `${new Date().toISOString()} ${r.status} ${seen} ${r.body.slice(0, 200)}`,
            );
        } catch (e) {
          results.failed.push(`${new Date().toISOString()} ${(e as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return results;
    })();
    return { done, stop: () => (running = false) };
  };
  /** Waits until no pod, ReplicaSet, EndpointSlice, Service or ConfigMap of the release is left. */
  const releaseGone = () =>
    waitFor(
      'every pod, ReplicaSet and EndpointSlice of the release gone',
      async () => {
        const kinds = [
          `/api/v1/namespaces/${NS}/pods`,
          `/apis/apps/v1/namespaces/${NS}/replicasets`,
          `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
          `/api/v1/namespaces/${NS}/services`,
          `/api/v1/namespaces/${NS}/configmaps`,
        ];
        const counts = await Promise.all(kinds.map(async (k) => (await get(k)).items.length));
        return counts.every((c) => c === 0) ? true : undefined;
      },
      60_000,
      250,
    );

  return {
    get,
    controllerDeployment,
    lease,
    through,
    leaderFlags,
    kubectlApply,
    reviewAt,
    admissionLoop,
    readyEndpoints,
    servedByEveryPod,
    steadyLoop,
    releaseGone,
  };
}
