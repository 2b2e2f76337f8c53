import {
  Module,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
} from '@nestjs/common';
import type { ContextProvider } from './lib/types.js';
import {
  RENDER_AWAIT_READBACK,
  RENDER_SNAPSHOT_SOURCE,
  RenderListener,
  type RenderSnapshotSource,
} from './render.listener.js';
import { renderMetrics } from './render.metrics.js';
import { RENDER_CONTEXT_PROVIDERS, RenderService } from './render.service.js';

/** Context providers built by the composition root from other modules' services. */
export interface RenderModuleAsyncOptions {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: InjectionToken[];
  readonly useFactory: (...deps: never[]) => readonly ContextProvider[];
  /** As in forRoot: the first render waits for the pods' read-back. */
  readonly awaitReadBack?: boolean;
}

/**
 * RenderModule: compiles templates per config version and renders index snapshots; needs the
 * global BusModule (EVENT_BUS) and, to render, a RENDER_SNAPSHOT_SOURCE provider. Other modules
 * add template variables through the context-provider port, wired here by the composition root.
 */
@Module({
  providers: [RenderService, RenderListener, ...renderMetrics],
  exports: [RenderService],
})
export class RenderModule {
  /** The module with fixed context providers and, optionally, the snapshot source. */
  static forRoot(
    options: {
      contextProviders?: readonly ContextProvider[];
      snapshotSource?: RenderSnapshotSource;
      /**
       * A deployer reads the pods back (dataplane.readback): the first render of the process
       * waits for it (10 s at most) unless the pods are known to be none.
       */
      awaitReadBack?: boolean;
    } = {},
  ): DynamicModule {
    const source = options.snapshotSource;
    return {
      module: RenderModule,
      providers: [
        { provide: RENDER_CONTEXT_PROVIDERS, useValue: options.contextProviders ?? [] },
        { provide: RENDER_AWAIT_READBACK, useValue: options.awaitReadBack === true },
        ...(source ? [{ provide: RENDER_SNAPSHOT_SOURCE, useValue: source }] : []),
        RenderService,
        RenderListener,
        ...renderMetrics,
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
        { provide: RENDER_AWAIT_READBACK, useValue: options.awaitReadBack === true },
        RenderService,
        RenderListener,
        ...renderMetrics,
      ],
      exports: [RenderService],
    };
  }
}
