import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The metrics of DESIGN.md §9 that `haptic run` exposes after a reconcile and a deployment.
 * A branch that adds one of §9's metrics (runtime operations, leader, webhook) appends its name.
 */
export const DESIGN_METRICS = [
  'haptic_reconcile_total',
  'haptic_render_duration_seconds',
  'haptic_validation_duration_seconds',
  'haptic_deployments_total',
  'haptic_deployment_duration_seconds',
  'haptic_reloads_total',
  'haptic_resources',
  'haptic_config_bytes',
  'haptic_last_successful_deployment_timestamp_seconds',
  'haptic_bus_queue_depth',
  'haptic_certificate_expiry_timestamp_seconds',
  'haptic_runtime_operations_total',
  // §9 "status written back" (libs/status): §9 names no metric for it; these count its writes
  'haptic_status_writes_total',
  'haptic_kube_events_total',
  'haptic_webhook_requests_total',
  'haptic_webhook_duration_seconds',
  'haptic_leader',
  'haptic_leader_transitions_total',
  // issue 37: where a change's time went, per stage
  'haptic_change_stage_seconds',
] as const;

/** Names of the metric families in a Prometheus text exposition (from its TYPE lines). */
export function metricFamilies(exposition: string): Set<string> {
  return new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
}

/** The metrics docs/operations/monitoring.md documents (its table's first column). */
export function documentedMetrics(): Set<string> {
  const page = readFileSync(
    fileURLToPath(new URL('../../../docs/operations/monitoring.md', import.meta.url)),
    'utf8',
  );
  return new Set([...page.matchAll(/^\|\s*`(haptic_[a-z_]+)`\s*\|/gm)].map((m) => m[1]!));
}
