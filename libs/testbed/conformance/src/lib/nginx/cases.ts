import type { KubeObject } from '#testbed/kube-sim';
import type { Answer, Req, Target } from './http.js';
import type { Expect } from './judge.js';

/** The namespace every case's Ingresses and backends live in. */
export const NS = 'nginx-conformance';
/** The TLS Secret (a certificate for `*.nginx.test`) that TLS Ingresses name. */
export const TLS_SECRET = 'nginx-test-tls';
/** The suite's Services and their ports (echo: 2 pods, echo-b: 1, httpbun: 1, echo-tls: HTTPS). */
export const SERVICE_PORTS: Readonly<Record<string, number>> = {
  echo: 8080,
  'echo-b': 8080,
  httpbun: 80,
  'echo-tls': 443,
};

/** A request and what its answer must show. */
export interface Step {
  readonly req: Req;
  readonly expect: Expect;
}

/** What a case's script may do: send requests to each HAProxy pod, apply objects, wait until served. */
export interface CaseTools {
  readonly pods: readonly Target[];
  call(pod: Target, r: Req): Promise<Answer>;
  /** Creates or replaces objects through the API (the webhook may refuse: the error says why). */
  apply(objects: readonly KubeObject[]): Promise<void>;
  /** Polls until the step's answer matches on every HAProxy pod; the last mismatch when it never does. */
  served(step: Step): Promise<string | undefined>;
  /** Runs the step once on every HAProxy pod; the first mismatch, naming the pod. */
  check(step: Step): Promise<string | undefined>;
  /** Deletes objects through the API (a backend going away mid-case). */
  remove(objects: readonly KubeObject[]): Promise<void>;
  /** `ip:port` of the first ready pod of the suite's namespace labelled `app` (an auth-url's host). */
  podAddress(app: string): Promise<string>;
}

/** One behaviour of the suite, written from ingress-nginx's annotation docs and e2e tests. */
export interface NginxCase {
  readonly name: string;
  /** The `nginx.ingress.kubernetes.io/*` annotations it covers (without the prefix); [] for routing. */
  readonly annotations: readonly string[];
  /** A core routing case: run on every HAProxy major the suite is asked for. */
  readonly core?: boolean;
  readonly objects: readonly KubeObject[];
  /**
   * Steps: the first is the case's readiness marker (polled on every HAProxy pod until it passes,
   * so it must only pass once every object is served); then every step runs once on every pod.
   */
  readonly steps: readonly Step[];
  /** More checks after the steps. */
  readonly script?: (t: CaseTools) => Promise<string | undefined>;
}

/** A path of a rule: `[path, service, pathType]`, service echo and Prefix by default. */
export type PathSpec = readonly [path: string, service?: string, pathType?: string];

const PREFIX = 'nginx.ingress.kubernetes.io/';

/** The annotations with ingress-nginx's prefix added. */
export function nginx(a: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [`${PREFIX}${k}`, v]));
}

/** A case's host: unique per case, under the suite's TLS certificate's wildcard. */
export const host = (slug: string) => `${slug}.nginx.test`;

/** An Ingress of the suite (its class is filled in by the runner): one rule, optional TLS. */
export function ingress(
  name: string,
  ruleHost: string,
  paths: readonly PathSpec[],
  annotations: Readonly<Record<string, string>> = {},
  opts: { tls?: boolean; extraHosts?: readonly string[] } = {},
): KubeObject {
  const rule = (h: string) => ({
    host: h,
    http: {
      paths: paths.map(([path, service = 'echo', pathType = 'Prefix']) => ({
        path,
        pathType,
        backend: { service: { name: service, port: { number: SERVICE_PORTS[service] ?? 80 } } },
      })),
    },
  });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace: NS, name, annotations: nginx(annotations) },
    spec: {
      ...(opts.tls ? { tls: [{ hosts: [ruleHost], secretName: TLS_SECRET }] } : {}),
      rules: [rule(ruleHost), ...(opts.extraHosts ?? []).map(rule)],
    },
  };
}

/** GET `path` on `h` (HTTP unless https). */
export const get = (h: string, path = '/', more: Partial<Req> = {}): Req => ({
  host: h,
  path,
  ...more,
});
