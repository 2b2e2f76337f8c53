import type { DynamicModule } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { RenderModule, type ContextProvider, type ProviderContext } from '#render';
import type { RenderSnapshot } from '#render';
import { HAPTIC_CONTEXT_PROVIDERS } from './gateway-context.js';

/** One Nest module a team composes into haptic (a class, a dynamic module, or a promise of one). */
export type ExtensionModule = NonNullable<DynamicModule['imports']>[number];

/** What a team adds to `haptic run` without editing haptic. */
export interface ControllerExtensions {
  /**
   * Nest modules composed after haptic's own: they may inject the bus (`EVENT_BUS`), the metrics
   * registry (`METRICS_REGISTRY`, or @willsoto/nestjs-prometheus providers, which land on the same
   * registry) and declare template variables with `@TemplateContext`.
   */
  readonly modules?: readonly ExtensionModule[];
  /** Plain template context providers, added to the one registry next to the built-in ones. */
  readonly contextProviders?: readonly ContextProvider[];
}

/** What `@TemplateContext` records on a provider class. */
export interface TemplateContextOptions {
  /** The top-level template variable's name. */
  readonly name: string;
  /** Computed on first use in a render instead of before every render. */
  readonly lazy?: boolean;
}

/** A provider class that computes one template variable from each index snapshot. */
export interface TemplateContextSource {
  provide(snapshot: RenderSnapshot, context: ProviderContext): unknown;
}

/**
 * Marks an injectable class (implementing TemplateContextSource) of any composed module as a
 * template context provider: `@TemplateContext({ name: 'team' }) @Injectable() class ...`.
 */
export const TemplateContext = DiscoveryService.createDecorator<TemplateContextOptions>();

/**
 * The context providers declared with @TemplateContext anywhere in the application. The name is
 * read from the class now; the instance is looked up when a render asks for it (Nest creates
 * instances after this factory may run).
 */
export function discoveredContextProviders(discovery: DiscoveryService): ContextProvider[] {
  return discovery.getProviders({ metadataKey: TemplateContext.KEY }).map((wrapper) => {
    const options = discovery.getMetadataByDecorator(TemplateContext, wrapper);
    if (!options?.name)
      throw new TypeError(`@TemplateContext on ${String(wrapper.name)} needs a name`);
    return {
      name: options.name,
      ...(options.lazy ? { lazy: true } : {}),
      provide: (snapshot, context) => {
        const source = wrapper.instance as Partial<TemplateContextSource> | undefined;
        if (typeof source?.provide !== 'function')
          throw new TypeError(
            `@TemplateContext ${options.name}: ${String(wrapper.name)} has no provide()`,
          );
        return source.provide(snapshot, context);
      },
    };
  });
}

/** RenderModule with the extensions' plain providers and every @TemplateContext class. */
export function renderModuleWith(extensions: ControllerExtensions): DynamicModule {
  return RenderModule.forRootAsync({
    imports: [DiscoveryModule],
    inject: [DiscoveryService],
    // the DataplaneModule reads the pods back: the first render keeps their server slots
    awaitReadBack: true,
    useFactory: (discovery: DiscoveryService) => [
      ...HAPTIC_CONTEXT_PROVIDERS,
      ...(extensions.contextProviders ?? []),
      ...discoveredContextProviders(discovery),
    ],
  });
}
