import { makeCounterProvider } from '@willsoto/nestjs-prometheus';

/** `haptic_status_writes_total{kind,result}`: status subresource writes (config, ingress). */
export const STATUS_WRITES = {
  name: 'haptic_status_writes_total',
  help: 'Status writes by the leader, by object kind (config, ingress, gateway) and result (ok, error).',
  labelNames: ['kind', 'result'] as const,
};

/** `haptic_kube_events_total{reason,result}`: Kubernetes Events created, counted up or failed. */
export const STATUS_EVENTS = {
  name: 'haptic_kube_events_total',
  help: 'Kubernetes Events written by the leader, by reason and result (created, counted, error).',
  labelNames: ['reason', 'result'] as const,
};

/** The metrics StatusModule declares (on the application's registry). */
export const statusMetrics = [
  makeCounterProvider({ ...STATUS_WRITES, labelNames: [...STATUS_WRITES.labelNames] }),
  makeCounterProvider({ ...STATUS_EVENTS, labelNames: [...STATUS_EVENTS.labelNames] }),
];
