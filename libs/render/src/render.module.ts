import {
  Module,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
} from '@nestjs/common';
import type { ContextProvider } from './lib/types.js';
import { RENDER_CONTEXT_PROVIDERS, RenderService } from './render.service.js';

/** Context providers built by the composition root from other modules' services. */
export interface RenderModuleAsyncOptions {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: InjectionToken[];
  readonly useFactory: (...deps: never[]) => readonly ContextProvider[];
}

/**
 * RenderModule: compiles templates per config version and renders index snapshots. Other modules
 * add template variables through the context-provider port, wired here by the composition root.
 */
@Module({
  providers: [RenderService],
  exports: [RenderService],
})
export class RenderModule {
  /** The module with a fixed list of context providers. */
  static forRoot(options: { contextProviders?: readonly ContextProvider[] } = {}): DynamicModule {
    return {
      module: RenderModule,
      providers: [
        { provide: RENDER_CONTEXT_PROVIDERS, useValue: options.contextProviders ?? [] },
        RenderService,
      ],
      exports: [RenderService],
    };
  }

  /** The module with context providers made by a factory over injected services. */
  static forRootAsync(options: RenderModuleAsyncOptions): DynamicModule {
    return {
      module: RenderModule,
      imports: options.imports ?? [],
      providers: [
        {
          provide: RENDER_CONTEXT_PROVIDERS,
          inject: options.inject ?? [],
          useFactory: options.useFactory,
        },
        RenderService,
      ],
      exports: [RenderService],
    };
  }
}
