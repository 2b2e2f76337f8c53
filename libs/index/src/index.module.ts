import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { IndexListener } from './index.listener.js';
import { indexMetrics } from './index.metrics.js';
import { INDEX_OPTIONS, OBJECT_FETCH_PORT, RESOURCE_SINK } from './index.tokens.js';
import type { CacheOptions } from './lib/cache.js';
import { ResourceIndex } from './lib/resource-index.js';
import type { ObjectFetchPort } from './lib/types.js';

export interface IndexModuleOptions {
  /** Bounds of the on-demand object cache (defaults: 5,000 objects, 60 s, 16 fetches). */
  readonly cache?: Partial<CacheOptions>;
}

/**
 * The index of every watched resource. Global: it provides the ResourceSink that watch fills
 * and the ResourceIndex (snapshots) that render and webhook read; it uses watch's fetch port.
 */
@Global()
@Module({})
export class IndexModule {
  static forRoot(options: IndexModuleOptions = {}): DynamicModule {
    return {
      module: IndexModule,
      providers: [
        { provide: INDEX_OPTIONS, useValue: options },
        {
          provide: ResourceIndex,
          inject: [ModuleRef, INDEX_OPTIONS],
          useFactory: (refs: ModuleRef, opts: IndexModuleOptions) => {
            // Resolved at call time: watch provides the port and needs the sink (no DI cycle).
            const fetch: ObjectFetchPort = {
              fetchObject: (resource, namespace, name) =>
                refs
                  .get<ObjectFetchPort>(OBJECT_FETCH_PORT, { strict: false })
                  .fetchObject(resource, namespace, name),
            };
            return new ResourceIndex({ fetch, ...(opts.cache ? { cache: opts.cache } : {}) });
          },
        },
        { provide: RESOURCE_SINK, useExisting: ResourceIndex },
        IndexListener,
        ...indexMetrics,
      ],
      exports: [ResourceIndex, RESOURCE_SINK],
    };
  }
}
