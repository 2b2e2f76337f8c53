import type { FactoryProvider } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { ResourceIndex } from '#index';
import { GATEWAY_STATUS_SOURCE, type GatewayStatusSource } from '#status';

/**
 * Glue between index and status (which must not know each other): the snapshot and the config's
 * watched names and extraContext — exactly what the `gateway` template variable is computed from.
 */
export const gatewayStatusSourceProvider: FactoryProvider<GatewayStatusSource> = {
  provide: GATEWAY_STATUS_SOURCE,
  inject: [ResourceIndex, EVENT_BUS],
  useFactory: (index: ResourceIndex, bus: HapticBus): GatewayStatusSource => ({
    async snapshot() {
      const spec = bus.getState('config.current')?.spec;
      if (!spec) return undefined;
      const snapshot = await index.snapshot();
      return {
        list: (watched: string) => snapshot.list(watched),
        watched: Object.keys(spec.watchedResources),
        extra: spec.templatingSettings.extraContext,
        podSelector: spec.podSelector,
      };
    },
  }),
};
