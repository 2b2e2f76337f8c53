// The ingress-nginx annotation catalogue: ONE table of every `nginx.ingress.kubernetes.io/*`
// annotation haptic knows, read by `haptic migrate`, by docs/ingress-nginx.md (generated from it)
// and by the ingress-nginx library's reporting of what it does not honour.
import { AUTH_ANNOTATIONS } from './catalogue-auth.js';
import { ROUTING_ANNOTATIONS } from './catalogue-routing.js';
import { TRAFFIC_ANNOTATIONS } from './catalogue-traffic.js';
import { NGINX_PREFIX, type AnnotationStatus, type NginxAnnotation } from './catalogue-types.js';

/** Every catalogued annotation, in documentation order. */
export const NGINX_ANNOTATIONS: readonly NginxAnnotation[] = [
  ...ROUTING_ANNOTATIONS,
  ...TRAFFIC_ANNOTATIONS,
  ...AUTH_ANNOTATIONS,
];

const BY_NAME = new Map(NGINX_ANNOTATIONS.map((a) => [a.name, a]));

/** The catalogue row of a full annotation key, or undefined (not ingress-nginx's, or unknown). */
export function nginxAnnotation(key: string): NginxAnnotation | undefined {
  return key.startsWith(NGINX_PREFIX) ? BY_NAME.get(key.slice(NGINX_PREFIX.length)) : undefined;
}

/** What one annotation of one Ingress gets: its catalogue status, or `unknown`. */
export type Verdict = AnnotationStatus | 'unknown';

/** The verdict on one annotation with its value, and the sentence explaining it. */
export interface AnnotationVerdict {
  readonly annotation: string;
  readonly verdict: Verdict;
  /** Why (refused), which deviation, which issue plans it; empty when honoured. */
  readonly detail: string;
}

/** Judges one `nginx.ingress.kubernetes.io/*` annotation and its value by the catalogue. */
export function judgeAnnotation(key: string, value: string): AnnotationVerdict {
  const row = nginxAnnotation(key);
  if (!row)
    return {
      annotation: key,
      verdict: 'unknown',
      detail:
        "not an annotation of ingress-nginx that haptic knows (a typo, or another controller's)",
    };
  const refused = row.refusedValues?.find((r) => r.value.test(value.trim()));
  if (refused)
    return {
      annotation: key,
      verdict: 'refused',
      detail: `value ${JSON.stringify(value)}: ${refused.reason}`,
    };
  return { annotation: key, verdict: row.status, detail: detailOf(row) };
}

function detailOf(row: NginxAnnotation): string {
  switch (row.status) {
    case 'honoured':
      return '';
    case 'deviation':
      return row.deviation ?? '';
    case 'refused':
      return row.reason ?? '';
    case 'not-yet-honoured':
      return row.planned
        ? `planned: ${row.planned}, not refused`
        : 'not yet honoured by the ingress-nginx library';
  }
}
