import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Histogram } from 'prom-client';
import { ADMISSION_DRY_RUN, type AdmissionDryRunPort } from '#events';
import { admissionResponse, parseAdmissionReview } from './lib/admission-review.js';
import { review, type Review, type ReviewerDeps } from './lib/review.js';
import { WebhookListener } from './webhook.listener.js';
import { WEBHOOK_DURATION, WEBHOOK_REQUESTS } from './webhook.metrics.js';
import { WEBHOOK_OPTIONS, type WebhookOptions } from './webhook.options.js';

/** Answers AdmissionReview v1 bodies: a dry run through the AdmissionDryRunPort, counted and timed. */
@Injectable()
export class WebhookService {
  private readonly logger = new Logger('Webhook');
  private readonly deps: ReviewerDeps;

  constructor(
    @Inject(ADMISSION_DRY_RUN) dryRun: AdmissionDryRunPort,
    @Inject(WEBHOOK_OPTIONS) options: WebhookOptions,
    listener: WebhookListener,
    @InjectMetric(WEBHOOK_REQUESTS.name) private readonly requests: Counter<'kind' | 'result'>,
    @InjectMetric(WEBHOOK_DURATION.name) private readonly duration: Histogram<'kind'>,
  ) {
    this.deps = {
      dryRun,
      testBudgetMs: options.testBudgetMs ?? 5_000,
      current: () => listener.current(),
      baseline: (c) => listener.baseline(c),
      passed: (c, o) => listener.remember(c, o),
    };
  }

  /** One AdmissionReview body in, the AdmissionReview answer out (throws MalformedReviewError). */
  async handle(body: unknown): Promise<Record<string, unknown>> {
    const started = performance.now();
    const req = parseAdmissionReview(body);
    let outcome: Review;
    try {
      outcome = await review(this.deps, req);
    } catch (e) {
      const kind = req.resource.resource === 'haproxytemplateconfigs' ? 'config' : 'resource';
      this.requests.inc({ kind, result: 'error' });
      this.logger.error(`review ${req.uid} failed: ${String(e)}`);
      throw e;
    }
    this.requests.inc({ kind: outcome.kind, result: outcome.result });
    this.duration.observe({ kind: outcome.kind }, (performance.now() - started) / 1000);
    if (outcome.result === 'denied')
      this.logger.log(`denied ${req.operation} ${req.uid}: ${outcome.verdict.message ?? ''}`);
    return admissionResponse(req.uid, outcome.verdict);
  }
}
