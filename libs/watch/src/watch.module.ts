import { Global, Logger, Module, type DynamicModule } from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { ClientNodeKubeApi } from './lib/client-node-api.js';
import type { KubeApi } from './lib/kube-api.js';
import type { ResourceSink } from './lib/ports.js';
import { WATCH_DEFAULTS } from './lib/reflector.js';
import { WatchManager } from './lib/watch-manager.js';
import { busListeners, WatchListener } from './watch.listener.js';
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
          useFactory: (api: KubeApi, sink: ResourceSink, bus: HapticBus) =>
            new WatchManager(api, sink, busListeners(bus, new Logger('Watch')), {
              ...WATCH_DEFAULTS,
              ...options.timing,
            }),
        },
        { provide: OBJECT_FETCH_PORT, useExisting: WatchManager },
        WatchListener,
      ],
      exports: [WatchManager, OBJECT_FETCH_PORT],
    };
  }
}

function defaultKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}
