import type { TlsMaterial, KubeObject } from '#testbed/kube-sim';
import { availableMajors } from '#haproxy-bin';
import {
  ECHO_POD_PORT,
  libraryChartValues,
  releaseIngressClass,
  Stack,
  waitFor,
} from '#testbed/stack';
import { AUTH_CASES } from './auth-cases.js';
import { BACKEND_TLS_CASES, PASSTHROUGH_CASES } from './backend-tls-cases.js';
import { CLIENT_CERT_CASES } from './client-cert-cases.js';
import { deployBackends, suiteCertificate } from './backends.js';
import { NS, type CaseTools, type NginxCase, type Step } from './cases.js';
import { CANARY_CASES } from './canary-cases.js';
import { CORE_CASES } from './core-cases.js';
import { CORS_CASES } from './cors-cases.js';
import { call, type Target } from './http.js';
import { judge } from './judge.js';
import { ERROR_CASES } from './error-cases.js';
import { EXTERNAL_AUTH_CASES } from './external-auth-cases.js';
import { HASH_CASES } from './hash-cases.js';
import { REDIRECT_CASES } from './redirect-cases.js';
import { REWRITE_CASES } from './rewrite-cases.js';
import { RETRY_CASES } from './retry-cases.js';
import { POLICY_CASES } from './policy-cases.js';
import { TRAFFIC_CASES } from './traffic-cases.js';
import { ALLOWED_RESPONSE_HEADERS, UPSTREAM_CASES } from './upstream-cases.js';

/** Every case of the suite, in the order they run. */
export const NGINX_CASES: readonly NginxCase[] = [
  ...CORE_CASES,
  ...REDIRECT_CASES,
  ...REWRITE_CASES,
  ...CORS_CASES,
  ...TRAFFIC_CASES,
  ...POLICY_CASES,
  ...HASH_CASES,
  ...RETRY_CASES,
  ...ERROR_CASES,
  ...AUTH_CASES,
  ...EXTERNAL_AUTH_CASES,
  ...CLIENT_CERT_CASES,
  ...BACKEND_TLS_CASES,
  ...PASSTHROUGH_CASES,
  ...CANARY_CASES,
  ...UPSTREAM_CASES,
];

/** The HAProxy majors the core routing cases run on by default; the other cases run on the first. */
export const NGINX_MAJORS = ['3.0', '2.6'] as const;

/** One case of the report: the Ingress suite's shape plus the annotations and the HAProxy major. */
export interface NginxCaseReport {
  readonly name: string;
  readonly result: 'passed' | 'failed' | 'skipped';
  readonly reason: string;
  readonly annotations: readonly string[];
  readonly haproxy: string;
}

export interface NginxSuiteReport {
  readonly suite: 'ingress-nginx';
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly cases: readonly NginxCaseReport[];
}

/** How long a case's readiness marker is polled (a render and a deployment to both HAProxy pods). */
const SERVED_MS = 90_000;

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

function apiPath(o: KubeObject): string {
  const plural = o.kind === 'Ingress' ? 'ingresses' : `${o.kind.toLowerCase()}s`;
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  return `${base}/namespaces/${o.metadata.namespace ?? 'default'}/${plural}/${o.metadata.name}`;
}

/** The tools of one case: the release's IngressClass filled in, every applied object remembered for clean-up. */
function caseTools(
  stack: Stack,
  pods: readonly Target[],
  className: string,
  applied: KubeObject[],
): CaseTools {
  const once = async (pod: Target, s: Step) => judge(await call(pod, s.req), s.expect);
  const describe = (s: Step) =>
    `${s.req.method ?? 'GET'} ${s.req.https ? 'https' : 'http'}://${s.req.host}${s.req.path ?? '/'}`;
  return {
    pods,
    call,
    async apply(objects) {
      for (const o of objects) {
        const spec = (o as { spec?: Record<string, unknown> }).spec;
        const obj =
          o.kind === 'Ingress' ? { ...o, spec: { ingressClassName: className, ...spec } } : o;
        await stack.apply(obj);
        applied.push(obj);
      }
    },
    async served(s) {
      for (const pod of pods) {
        let last = '';
        try {
          await waitFor(
            () => `${describe(s)} through ${pod.address}: ${last}`,
            async () => {
              last = (await once(pod, s).catch(message)) ?? '';
              return last === '' ? true : undefined;
            },
            SERVED_MS,
            250,
          );
        } catch (e) {
          return message(e);
        }
      }
      return undefined;
    },
    async check(s) {
      for (const pod of pods) {
        const why = await once(pod, s).catch(message);
        if (why) return `${describe(s)} through ${pod.address}: ${why}`;
      }
      return undefined;
    },
    async remove(objects) {
      for (const o of objects) await stack.delete(apiPath(o));
    },
    async podAddress(app) {
      const pod = (await stack.readyPods(NS, { app }))[0];
      if (pod === undefined) throw new Error(`no ready pod of ${NS}/${app}`);
      return `${pod.ip}:${ECHO_POD_PORT}`;
    },
  };
}

async function runCase(stack: Stack, pods: readonly Target[], className: string, c: NginxCase) {
  const applied: KubeObject[] = [];
  const t = caseTools(stack, pods, className, applied);
  try {
    await t.apply(c.objects);
    const [first, ...rest] = c.steps;
    if (first) {
      const why = await t.served(first);
      if (why) return why;
    }
    for (const s of [first, ...rest]) {
      const why = s && (await t.check(s));
      if (why) return why;
    }
    return c.script ? await c.script(t) : undefined;
  } finally {
    for (const o of applied.reverse()) await stack.delete(apiPath(o)).catch(() => undefined);
  }
}

/** The stack as `npm run demo -- --library ingress-nginx` installs it, on one HAProxy binary. */
async function startStack(bin: string | undefined, log: (l: string) => void): Promise<Stack> {
  return Stack.start({
    install: 'chart',
    fast: true,
    chartValues: {
      ...libraryChartValues('ingress-nginx'),
      // the custom-headers cases' names (ingress-nginx's global-allowed-response-headers)
      ...Object.fromEntries(
        ALLOWED_RESPONSE_HEADERS.map((h, i) => [
          `controller.config.extraContext.global_allowed_response_headers[${i}]`,
          h,
        ]),
      ),
    },
    ...(bin ? { haproxyBin: bin } : {}),
    log,
  });
}

/** Runs `cases` against a fresh stack on one HAProxy major. */
async function runOnMajor(
  major: string,
  cases: readonly NginxCase[],
  cert: TlsMaterial,
  progress: (c: NginxCaseReport) => void,
  log: (l: string) => void,
): Promise<NginxCaseReport[]> {
  const report = (c: NginxCase, why: string | undefined): NginxCaseReport => {
    const r: NginxCaseReport = {
      name: c.core ? `${c.name} (haproxy ${major})` : c.name,
      result: why === undefined ? 'passed' : 'failed',
      reason: why ?? '',
      annotations: c.annotations,
      haproxy: major,
    };
    progress(r);
    return r;
  };
  const install = availableMajors().find((i) => i.branch === major);
  if (!install)
    return cases.map((c) => report(c, `HAProxy ${major} is not installed (run scripts/setup.sh)`));
  const stack = await startStack(install.bin, log);
  try {
    await deployBackends(stack, cert);
    const className = await releaseIngressClass(stack);
    const t = stack.topology;
    const pods = (await stack.haproxyPods()).map((p) => ({
      address: p.ip,
      httpPort: t.httpPort,
      httpsPort: t.httpsPort,
      ca: cert.cert,
    }));
    const out: NginxCaseReport[] = [];
    for (const c of cases)
      out.push(report(c, await runCase(stack, pods, className, c).catch(message)));
    return out;
  } finally {
    await stack.stop();
  }
}

/**
 * Runs the ingress-nginx suite (all cases, or those named) through the chart with the
 * ingress-nginx library: every case on the first major, the core routing cases on the others too.
 */
export async function runNginxSuite(
  names: readonly string[] | undefined,
  progress: (c: NginxCaseReport) => void = () => undefined,
  options: { majors?: readonly string[]; log?: (l: string) => void } = {},
): Promise<NginxSuiteReport> {
  const unknown = (names ?? []).filter((n) => !NGINX_CASES.some((c) => c.name === n));
  if (unknown.length > 0)
    throw new RangeError(`unknown ingress-nginx cases: ${unknown.join(', ')}`);
  const cases = names?.length ? NGINX_CASES.filter((c) => names.includes(c.name)) : NGINX_CASES;
  const [main = '3.0', ...others] = options.majors ?? NGINX_MAJORS;
  const cert = await suiteCertificate();
  const log = options.log ?? (() => undefined);
  const reports = await runOnMajor(main, cases, cert, progress, log);
  for (const major of others) {
    const core = cases.filter((c) => c.core);
    if (core.length > 0) reports.push(...(await runOnMajor(major, core, cert, progress, log)));
  }
  const count = (x: NginxCaseReport['result']) => reports.filter((r) => r.result === x).length;
  return {
    suite: 'ingress-nginx',
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    cases: reports,
  };
}
