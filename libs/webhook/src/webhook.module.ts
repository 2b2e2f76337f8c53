import {
  Module,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
} from '@nestjs/common';
import { ADMISSION_DRY_RUN, type AdmissionDryRunPort } from '#events';
import { WebhookListener } from './webhook.listener.js';
import { webhookMetrics } from './webhook.metrics.js';
import { WEBHOOK_OPTIONS, type WebhookOptions } from './webhook.options.js';
import { WebhookServer } from './webhook.server.js';
import { WebhookService } from './webhook.service.js';

/** How the composition root builds the dry-run port from other modules' services. */
export interface DryRunFactory {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: InjectionToken[];
  readonly useFactory: (...deps: never[]) => AdmissionDryRunPort;
}

/**
 * WebhookModule: the validating admission endpoint (AdmissionReview v1 over HTTPS) on every
 * replica. Needs the global BusModule and the AdmissionDryRunPort, which the composition root
 * builds from the index, the renderer and the validator (this module imports none of them).
 */
@Module({})
export class WebhookModule {
  /** The module serving on `options.port` with `options.certificate`. */
  static forRoot(options: WebhookOptions, dryRun: DryRunFactory): DynamicModule {
    return {
      module: WebhookModule,
      imports: dryRun.imports ?? [],
      providers: [
        { provide: WEBHOOK_OPTIONS, useValue: options },
        { provide: ADMISSION_DRY_RUN, inject: dryRun.inject ?? [], useFactory: dryRun.useFactory },
        WebhookListener,
        WebhookService,
        WebhookServer,
        ...webhookMetrics,
      ],
      exports: [WebhookService, WebhookServer],
    };
  }
}
