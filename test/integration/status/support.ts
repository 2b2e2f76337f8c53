// Shared set-up of the status integration tests: the real kubectl against kube-sim (with the
// shipped CRD), a controller running in process on a minimal HAProxyTemplateConfig, and a poll.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import { runController } from '../../../apps/controller/src/run/compose.js';
import type { RunningController } from '../../../apps/controller/src/run/controller-app.js';
import { resolveRunOptions } from '../../../apps/controller/src/run/run-options.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
/** The namespace of the HAProxyTemplateConfig (and the controller's). */
export const NS = 'haptic';

/** A HAProxyTemplateConfig watching Ingresses and IngressClasses; `global` holds `template`. */
export function statusTestConfig(opts: {
  readonly template: string;
  readonly controllerName: string;
  readonly status?: object;
}): KubeObject {
  return {
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyTemplateConfig',
    metadata: { namespace: NS, name: 'haptic' },
    spec: {
      credentialsSecretRef: { name: 'creds' },
      podSelector: { matchLabels: { app: 'haproxy' } },
      controller: {
        leaderElection: { enabled: false },
        reconcile: { debounce: '20ms', maxDelay: '200ms' },
        ...(opts.status ? { status: opts.status } : {}),
      },
      watchedResources: {
        ingresses: {
          apiVersion: 'networking.k8s.io/v1',
          resources: 'ingresses',
          indexBy: ['metadata.namespace', 'metadata.name'],
        },
        ingressclasses: {
          apiVersion: 'networking.k8s.io/v1',
          resources: 'ingressclasses',
          indexBy: ['metadata.name'],
        },
      },
      templatingSettings: { extraContext: { controller_name: opts.controllerName } },
      haproxyConfig: {
        template: `global\n${opts.template}defaults\n  mode http\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\nfrontend health\n  bind 127.0.0.1:8404\n  http-request return status 200\n`,
      },
    },
  };
}

/** kube-sim with the shipped CRD, the real kubectl bound to it, and a temporary HOME. */
export interface KubectlBed {
  readonly sim: KubeSim;
  /** Runs kubectl with these arguments; rejects with its stderr. */
  readonly k: (...args: string[]) => Promise<string>;
  stop(): Promise<void>;
}

/** Starts kube-sim (with the HAProxyTemplateConfig CRD) and binds the project's kubectl to it. */
export async function startKubectlBed(prefix: string): Promise<KubectlBed> {
  const kubectl = join(
    execFileSync(process.execPath, [join(root, 'scripts/tools.mjs')], { encoding: 'utf8' }).trim(),
    'kubectl',
  );
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const sim = await KubeSim.start({
    kubeconfigPath: join(dir, 'kubeconfig'),
    manifests: [join(root, 'helm/haptic/crds/haproxytemplateconfigs.yaml')],
  });
  const k = (...args: string[]): Promise<string> =>
    new Promise((resolve, reject) =>
      execFile(
        kubectl,
        args,
        {
          env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: sim.kubeconfigPath },
          timeout: 30_000,
        },
        (e, out, err) =>
          e ? reject(new Error(`kubectl ${args.join(' ')}: ${err}`)) : resolve(out),
      ),
    );
  return {
    sim,
    k,
    stop: async () => {
      await sim.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `haptic run`'s controller in process against the bed's kube-sim (no leader election). */
export function startController(sim: KubeSim, identity: string): Promise<RunningController> {
  return runController(
    resolveRunOptions(
      {
        kubeconfig: sim.kubeconfigPath,
        namespace: NS,
        configName: 'haptic',
        address: '127.0.0.1',
        healthPort: '0',
        metricsPort: '0',
        identity,
      },
      {},
    ),
  );
}

/** Polls `check` every 100 ms until it holds; throws naming `what` after `ms`. */
export async function until(
  what: string | (() => string),
  check: () => Promise<boolean>,
  ms = 60_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
