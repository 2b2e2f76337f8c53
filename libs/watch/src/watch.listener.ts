import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { TemplateConfig } from '#core';
import type { HapticBus } from '#events';
import type { WatchListeners } from './lib/watch-manager.js';
import { WatchManager } from './lib/watch-manager.js';
import type { WatchModuleOptions } from './watch.module-options.js';
import { WATCH_OPTIONS } from './watch.tokens.js';

/** What watch reports, turned into haptic events and state values. */
export function busListeners(bus: HapticBus, logger: Logger): WatchListeners {
  return {
    config: (result, object) => {
      const name = object?.metadata.name ?? '';
      if (!result) {
        logger.warn('the HAProxyTemplateConfig does not exist; the last good config keeps serving');
        return;
      }
      if (result.ok) {
        bus.setState('config.current', result.config);
        void bus.publish('config.accepted', {
          name,
          generation: result.config.source.generation ?? 0,
        });
      } else {
        const generation = object?.metadata['generation'];
        void bus.publish('config.rejected', {
          name,
          problems: result.problems,
          ...(typeof generation === 'number' ? { generation } : {}),
        });
      }
    },
    credentials: (state) => {
      if (state.ok) {
        const { username, password } = state.credentials;
        bus.setState('dataplane.credentials', { username, password });
      } else logger.warn(state.reason);
    },
    pods: (pods) => bus.setState('haproxy.pods', pods),
  };
}

/**
 * Applies every accepted config (`config.current`) to the watches, in order, and starts the
 * watch of the HAProxyTemplateConfig itself when one is named.
 */
@Injectable()
export class WatchListener implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Watch');
  private chain: Promise<void> = Promise.resolve();
  private off: (() => void) | undefined;

  constructor(
    private readonly manager: WatchManager,
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Inject(WATCH_OPTIONS) private readonly options: WatchModuleOptions,
  ) {}

  onModuleInit(): void {
    this.off = this.bus.subscribeState('config.current', (e) => this.enqueue(e.payload), {
      name: 'watch',
    });
  }

  onApplicationBootstrap(): void {
    if (this.options.config) this.manager.watchConfig(this.options.config);
  }

  async onApplicationShutdown(): Promise<void> {
    this.off?.();
    await this.chain;
    await this.manager.stop();
  }

  private enqueue(config: TemplateConfig): Promise<void> {
    const namespace = config.source.namespace ?? this.options.config?.namespace ?? 'default';
    this.chain = this.chain
      .then(() => this.manager.apply(config.spec, namespace))
      .then(({ restarted }) => {
        if (restarted.length > 0) this.logger.log(`watching ${restarted.join(', ')} (re)started`);
      })
      .catch((e: unknown) =>
        this.logger.error(`applying the config to watches failed: ${String(e)}`),
      );
    return this.chain;
  }
}
