import { EventBus, type BusEvent, type EventBusOptions } from '#bus';
import type { HapticBus, HapticFacts } from '#events';

/** A started HapticBus whose errors fail loudly, for tests. */
export async function createTestBus(options: EventBusOptions = {}): Promise<HapticBus> {
  const bus: HapticBus = new EventBus({
    historySize: 10_000,
    onHandlerError: (error) => {
      throw error;
    },
    ...options,
  });
  await bus.start();
  return bus;
}

/** Every fact published on `topic` so far (from the bus history), oldest first. */
export function published<K extends keyof HapticFacts>(
  bus: HapticBus,
  topic: K,
): BusEvent<K, HapticFacts[K]>[] {
  return bus.history().filter((e): e is BusEvent<K, HapticFacts[K]> => e.topic === topic);
}
