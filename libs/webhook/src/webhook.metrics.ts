import { makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';

/** `haptic_webhook_requests_total{kind,result}`: one per admission review answered. */
export const WEBHOOK_REQUESTS = {
  name: 'haptic_webhook_requests_total',
  help: 'Admission reviews answered, by kind (config, resource) and result (allowed, denied, skipped, error).',
  labelNames: ['kind', 'result'] as const,
};

/** `haptic_webhook_duration_seconds{kind}`: time from request body to answer. */
export const WEBHOOK_DURATION = {
  name: 'haptic_webhook_duration_seconds',
  help: 'Time to answer one admission review (dry-run render and validation included), by kind.',
  labelNames: ['kind'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
};

/** The metrics WebhookModule declares (on the application's registry). */
export const webhookMetrics = [
  makeCounterProvider({ ...WEBHOOK_REQUESTS, labelNames: [...WEBHOOK_REQUESTS.labelNames] }),
  makeHistogramProvider({ ...WEBHOOK_DURATION, labelNames: [...WEBHOOK_DURATION.labelNames] }),
];
