import { Global, Logger, Module, type DynamicModule } from '@nestjs/common';
// The KubeConfig module alone, not client-node's index (see cli/client-node-hooks.ts).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { ClientNodeKubeApi } from './lib/client-node-api.js';
import type { KubeApi } from './lib/kube-api.js';
import type { ResourceSink } from './lib/ports.js';
import { WATCH_DEFAULTS } from './lib/reflector.js';
import { WatchManager } from './lib/watch-manager.js';
import { busListeners, WatchListener } from './watch.listener.js';
import { watchMetrics } from './watch.metrics.js';
import type { WatchModuleOptions } from './watch.module-options.js';
import { KUBE_API, OBJECT_FETCH_PORT, RESOURCE_SINK, WATCH_OPTIONS } from './watch.tokens.js';

/**
 * Every list+watch of the controller. Needs a ResourceSink (the index provides it) and the bus;
 * provides the on-demand fetch port and the WatchManager (status for /debug and readiness).
 */
@Global()
@Module({})
export class WatchModule {
  static forRoot(options: WatchModuleOptions = {}): DynamicModule {
    return {
      module: WatchModule,
      providers: [
        { provide: WATCH_OPTIONS, useValue: options },
        {
          provide: KUBE_API,
          useFactory: (): KubeApi => {
            const kc = options.kubeConfig ?? defaultKubeConfig();
            return new ClientNodeKubeApi(kc, options.api ?? {});
          },
        },
        {
          provide: WatchManager,
          inject: [KUBE_API, RESOURCE_SINK, EVENT_BUS],
          useFactory: (api: KubeApi, sink: ResourceSink, bus: HapticBus) => {
            const logger = new Logger('Watch');
            const conditions = new Map<string, string>();
            const manager: WatchManager = new WatchManager(
              api,
              sink,
              {
                ...busListeners(bus, logger),
                status: () => {
                  logConditions(manager, conditions, logger);
                  logConfigCondition(manager, conditions, logger);
                },
              },
              { ...WATCH_DEFAULTS, ...options.timing },
            );
            return manager;
          },
        },
        { provide: OBJECT_FETCH_PORT, useExisting: WatchManager },
        WatchListener,
        ...watchMetrics,
      ],
      exports: [WatchManager, OBJECT_FETCH_PORT],
    };
  }
}

/** Logs each watched resource's forbidden/not-found condition once, when it starts and ends. */
function logConditions(manager: WatchManager, seen: Map<string, string>, logger: Logger): void {
  for (const s of manager.status()) {
    const bad = ['unauthorized', 'forbidden', 'not-found', 'invalid'].includes(s.phase)
      ? s.phase
      : '';
    if ((seen.get(s.resource) ?? '') === bad) continue;
    seen.set(s.resource, bad);
    if (bad) logger.error(`cannot list watched resource ${s.resource} (${bad}): ${s.message}`);
    else logger.log(`watched resource ${s.resource} can be listed again`);
  }
}

/**
 * Logs, at error level with the API server's URL, why the HAProxyTemplateConfig cannot be read
 * (server not answering, credentials refused, CRD missing), once per condition; the watch
 * retries with backoff meanwhile.
 */
function logConfigCondition(
  manager: WatchManager,
  seen: Map<string, string>,
  logger: Logger,
): void {
  const s = manager.configStatus();
  if (!s) return;
  const bad = ['backoff', 'unauthorized', 'forbidden', 'not-found', 'invalid'].includes(s.phase)
    ? s.phase
    : '';
  const key = '\0config';
  if ((seen.get(key) ?? '') === bad) return;
  seen.set(key, bad);
  const { ref, server } = s;
  const { namespace, name } = ref;
  if (bad)
    logger.error(
      `cannot read HAProxyTemplateConfig ${namespace}/${name} from the API server ${server} ` +
        `(${bad}): ${s.message || s.lastError}; retrying with backoff`,
    );
  else if (s.phase === 'watching')
    logger.log(`reading HAProxyTemplateConfig ${namespace}/${name} from ${server}`);
}

function defaultKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}
