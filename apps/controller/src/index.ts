// The public door of the `haptic` package: what an outside package may import to compose haptic
// with its own Nest modules (see docs/extending.md). Everything else is internal.

// the composition root
export { runController } from './run/compose.js';
export type { RunningController } from './run/controller-app.js';
export { resolveRunOptions, type RunOptions } from './run/run-options.js';
export {
  TemplateContext,
  type ControllerExtensions,
  type ExtensionModule,
  type TemplateContextOptions,
  type TemplateContextSource,
} from './run/extension.js';
export { loadExtensions } from './run/load-modules.js';
export { StartupConfigError } from './run/kube-config.js';

// the bus and the event catalogue (topics, payloads, ports, DI tokens such as METRICS_REGISTRY)
export { EVENT_BUS, type EventBus, type BusEvent } from '#bus';
export * from '#events';

// the config types
export {
  TEMPLATE_CONFIG_API_VERSION,
  TEMPLATE_CONFIG_KIND,
  type TemplateConfig,
  type TemplateConfigSource,
  TemplateConfigSpec,
  type DeepReadonly,
  HapticError,
} from '#core';

// the template context port
export type { ContextProvider, ProviderContext, RenderSnapshot } from '#render';
