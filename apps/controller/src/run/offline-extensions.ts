import { Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, NestFactory } from '@nestjs/core';
import { BusModule } from '#bus';
import type { ContextProvider } from '#render';
import { discoveredContextProviders, type ControllerExtensions } from './extension.js';
import { loadExtensions } from './load-modules.js';
import { MetricsModule } from './metrics.module.js';

@Module({})
class OfflineExtensionHost {
  static forRoot(extensions: ControllerExtensions): DynamicModule {
    return {
      module: OfflineExtensionHost,
      imports: [BusModule, MetricsModule, DiscoveryModule, ...(extensions.modules ?? [])],
    };
  }
}

/** The `--module`s' template variables for an offline render, and how to let them go. */
export interface OfflineExtensions {
  readonly providers: readonly ContextProvider[];
  close(): Promise<void>;
}

/**
 * The context providers `--module`s add, for renders outside `haptic run` (`haptic validate`,
 * `haptic render`): the modules are composed over the bus and the metrics registry as under
 * `haptic run` — no watches, no listeners — so a `@TemplateContext` class gets the same
 * dependencies and the templates see the same variables, rendered to the same bytes.
 */
export async function offlineExtensions(
  specs: readonly string[],
  cwd: string = process.cwd(),
): Promise<OfflineExtensions> {
  if (specs.length === 0) return { providers: [], close: () => Promise.resolve() };
  const extensions = await loadExtensions(specs, cwd);
  // errors only, on stderr: stdout carries the command's output
  const app: INestApplicationContext = await NestFactory.createApplicationContext(
    OfflineExtensionHost.forRoot(extensions),
    { logger: ['error'], abortOnError: false },
  );
  await app.init();
  return {
    providers: [
      ...(extensions.contextProviders ?? []),
      ...discoveredContextProviders(app.get(DiscoveryService)),
    ],
    close: () => app.close(),
  };
}
