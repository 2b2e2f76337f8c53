import {
  makeCounterProvider,
  makeGaugeProvider,
  makeHistogramProvider,
} from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge, Histogram } from 'prom-client';

export const DEPLOYMENTS_TOTAL = {
  name: 'haptic_deployments_total',
  help: 'Deployments to HAProxy pods, by result (applied, unchanged, failed).',
  labelNames: ['pod', 'result'],
};
export const DEPLOYMENT_DURATION = {
  name: 'haptic_deployment_duration_seconds',
  help: 'Time to deploy to one pod.',
  labelNames: ['pod'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
};
export const RELOADS_TOTAL = {
  name: 'haptic_reloads_total',
  help: 'HAProxy reloads caused by deployments.',
  labelNames: ['pod', 'reason'],
};
export const RUNTIME_OPERATIONS = {
  name: 'haptic_runtime_operations_total',
  help: 'Changes applied through the runtime API without a reload, by kind (server.set, map.replace, cert.update...).',
  labelNames: ['pod', 'kind'],
};
export const LAST_SUCCESS = {
  name: 'haptic_last_successful_deployment_timestamp_seconds',
  help: 'When a deployment to the pod last succeeded (Unix time).',
  labelNames: ['pod'],
};

/** The metrics DataplaneModule declares (on the application's registry). */
export const dataplaneMetrics = [
  makeCounterProvider(DEPLOYMENTS_TOTAL),
  makeHistogramProvider(DEPLOYMENT_DURATION),
  makeCounterProvider(RELOADS_TOTAL),
  makeCounterProvider(RUNTIME_OPERATIONS),
  makeGaugeProvider(LAST_SUCCESS),
];

type PodMetric = Counter | Gauge | Histogram;

/** Removes every series of `pod` from the metrics (a vanished pod leaves no stale series). */
export async function forgetPod(metrics: readonly PodMetric[], pod: string): Promise<void> {
  for (const metric of metrics) {
    const { values } = await metric.get();
    const seen = new Set<string>();
    for (const v of values) {
      if (v.labels['pod'] !== pod) continue;
      const { le: _bucket, ...labels } = v.labels;
      const key = JSON.stringify(labels);
      if (seen.has(key)) continue;
      seen.add(key);
      metric.remove(labels);
    }
  }
}
