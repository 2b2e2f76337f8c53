import type { KubeConfig } from '@kubernetes/client-node';
import type { ClientNodeApiOptions } from './lib/client-node-api.js';
import type { ReflectorTiming } from './lib/reflector.js';
import type { ConfigRef } from './lib/watch-manager.js';

export interface WatchModuleOptions {
  /** Where the API server is; default: client-node's loadFromDefault (KUBECONFIG, in-cluster). */
  readonly kubeConfig?: KubeConfig;
  /** The HAProxyTemplateConfig to follow; without it, config.current must come from elsewhere. */
  readonly config?: ConfigRef;
  readonly timing?: Partial<ReflectorTiming>;
  readonly api?: Partial<ClientNodeApiOptions>;
}
