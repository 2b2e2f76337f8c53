import { makeHistogramProvider } from '@willsoto/nestjs-prometheus';

/** `haptic_validation_duration_seconds{result}`: one observation per validated render. */
export const VALIDATION_DURATION = {
  name: 'haptic_validation_duration_seconds',
  help: 'Time to validate one render (structural checks and haproxy -c), by result.',
  labelNames: ['result'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
};

/** The metrics ValidationModule declares (on the application's registry). */
export const validationMetrics = [
  makeHistogramProvider({
    ...VALIDATION_DURATION,
    labelNames: [...VALIDATION_DURATION.labelNames],
  }),
];
