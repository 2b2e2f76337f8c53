// The shape of one row of the ingress-nginx annotation catalogue (catalogue.ts holds the rows).

/** The prefix every ingress-nginx annotation carries. */
export const NGINX_PREFIX = 'nginx.ingress.kubernetes.io/';

/**
 * What haptic does with an annotation today. `honoured` and `deviation` are set only for what the
 * ingress-nginx library implements and a conformance case tests; the rest say why not.
 */
export type AnnotationStatus = 'honoured' | 'deviation' | 'refused' | 'not-yet-honoured';

/** The annotation groups, in the order the documentation lists them. */
export const ANNOTATION_GROUPS = [
  'Redirects and rewrites',
  'Backends',
  'Canary',
  'Session affinity',
  'CORS',
  'Access and rate limits',
  'Headers',
  'Snippets',
  'Authentication',
] as const;
export type AnnotationGroup = (typeof ANNOTATION_GROUPS)[number];

/** A value of an otherwise accepted annotation that haptic refuses, and why. */
export interface RefusedValue {
  /** Matched against the trimmed value, case-insensitively. */
  readonly value: RegExp;
  readonly reason: string;
}

/** One `nginx.ingress.kubernetes.io/*` annotation. */
export interface NginxAnnotation {
  /** The name after the prefix, e.g. `rewrite-target`. */
  readonly name: string;
  readonly group: AnnotationGroup;
  /** What it does in ingress-nginx (its user guide and e2e tests are the specification). */
  readonly meaning: string;
  /** How haptic maps it to HAProxy (the intended mapping while not yet honoured). */
  readonly haproxy: string;
  readonly status: AnnotationStatus;
  /** For `deviation`: how haptic's behaviour differs from ingress-nginx's. */
  readonly deviation?: string;
  /** For `refused`: why haptic will not honour it. */
  readonly reason?: string;
  /** For `not-yet-honoured`: the issue that will build it, when one is planned. */
  readonly planned?: string;
  /** Values refused even once the annotation is honoured. */
  readonly refusedValues?: readonly RefusedValue[];
}
