import type { ContextProvider } from '#render';
import { gatewayModelOf } from '#status';

/**
 * `gateway`: the Gateway API resolver's model of the snapshot (libs/status), computed once per
 * render on first use — the same function the status writer calls, so templates and status agree.
 */
export const gatewayContextProvider: ContextProvider = {
  name: 'gateway',
  lazy: true,
  provide: (snapshot, context) =>
    gatewayModelOf((watched) => snapshot.list(watched), context.watched, context.extra),
};

/**
 * Context providers haptic's own commands add to the render registry's built-in ones (their
 * computation lives in libs the render lib must not import): `haptic run`, the webhook,
 * `haptic validate` and `haptic render` all render with them.
 */
export const HAPTIC_CONTEXT_PROVIDERS: readonly ContextProvider[] = [gatewayContextProvider];
