import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
// The KubeConfig module alone, not client-node's index (see cli/client-node-hooks.ts).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { HapticError } from '#core';

/** `haptic run` cannot start: bad flags, no credentials, an unreadable kubeconfig. Exit code 2. */
export class StartupConfigError extends HapticError {
  readonly code = 'HAPTIC_STARTUP_CONFIG';
}

/** The service account files a pod gets (client-node reads the same ones). */
export const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** Where `haptic run` may find API server credentials; `kubeconfig` is the --kubeconfig flag. */
export interface KubeConfigSources {
  readonly kubeconfig?: string;
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly exists: (path: string) => boolean;
}

function load(
  kc: KubeConfig,
  files: readonly string[],
  what: string,
  exists: (path: string) => boolean,
): KubeConfig {
  const missing = files.filter((f) => !exists(f));
  if (missing.length > 0)
    throw new StartupConfigError(`${what}: ${missing.join(', ')} does not exist`, {
      details: { files },
    });
  try {
    if (files.length === 1) kc.loadFromFile(files[0]!);
    else kc.loadFromDefault(); // client-node merges every file of $KUBECONFIG
  } catch (e) {
    throw new StartupConfigError(`${what}: ${files.join(', ')}: ${(e as Error).message}`, {
      cause: e,
      details: { files },
    });
  }
  if (!kc.getCurrentCluster())
    throw new StartupConfigError(
      `${what}: ${files.join(', ')}: current-context ${JSON.stringify(kc.getCurrentContext())} names no cluster`,
      { details: { files } },
    );
  return kc;
}

/**
 * The API server credentials `haptic run` uses: --kubeconfig, else $KUBECONFIG, else
 * ~/.kube/config, else the in-cluster service account. Never client-node's silent fallback to
 * http://localhost:8080 (which would be the controller's own health port): when none of these
 * exists it throws StartupConfigError naming each place it looked.
 */
export function resolveKubeConfig(sources: KubeConfigSources): KubeConfig {
  const kc = new KubeConfig();
  if (sources.kubeconfig) return load(kc, [sources.kubeconfig], '--kubeconfig', sources.exists);
  const fromEnv = (sources.env['KUBECONFIG'] ?? '').split(delimiter).filter((f) => f !== '');
  if (fromEnv.length > 0) return load(kc, fromEnv, '$KUBECONFIG', sources.exists);
  const home = join(sources.home, '.kube', 'config');
  if (sources.exists(home)) return load(kc, [home], '~/.kube/config', sources.exists);
  const host = sources.env['KUBERNETES_SERVICE_HOST'];
  const port = sources.env['KUBERNETES_SERVICE_PORT'];
  if (host && port && sources.exists(IN_CLUSTER_TOKEN)) {
    kc.loadFromCluster();
    return kc;
  }
  throw new StartupConfigError(
    'no Kubernetes API credentials: looked for --kubeconfig, $KUBECONFIG (unset), ' +
      `${home} (absent) and an in-cluster service account ($KUBERNETES_SERVICE_HOST ` +
      `${host ? 'set' : 'unset'}, ${IN_CLUSTER_TOKEN} ${sources.exists(IN_CLUSTER_TOKEN) ? 'present' : 'absent'})`,
    { details: { looked: ['--kubeconfig', 'KUBECONFIG', home, IN_CLUSTER_TOKEN] } },
  );
}

/** resolveKubeConfig over this process's environment and file system. */
export function processKubeConfig(kubeconfig: string | undefined): KubeConfig {
  return resolveKubeConfig({
    ...(kubeconfig ? { kubeconfig } : {}),
    env: process.env,
    home: homedir(),
    exists: existsSync,
  });
}

/** The API server's URL, for logs and /readyz. */
export function serverUrl(kc: KubeConfig): string {
  return kc.getCurrentCluster()?.server ?? '(no cluster)';
}
