import { TEMPLATE_CONFIG_GROUP, type TemplateConfig } from '#core';
import type { AdmissionDryRunPort } from '#events';
import type { AdmissionRequest, Review } from './admission-review.js';
import { reviewConfig } from './review-config.js';
import { reviewObject, watchedFor, type ObjectReviewDeps } from './review-object.js';

export type { Review, ReviewKind } from './admission-review.js';

export interface ReviewerDeps extends ObjectReviewDeps {
  readonly dryRun: AdmissionDryRunPort;
  /** The config in force (undefined before the first one is accepted). */
  current(): TemplateConfig | undefined;
  /** Time the embedded tests of a config may take before the webhook answers without them. */
  readonly testBudgetMs: number;
}

const isConfig = (req: AdmissionRequest) =>
  req.resource.group === TEMPLATE_CONFIG_GROUP &&
  req.resource.resource === 'haproxytemplateconfigs';

/** Decides one admission request (never throws for bad objects: they are denials). */
export async function review(deps: ReviewerDeps, req: AdmissionRequest): Promise<Review> {
  if (isConfig(req)) return reviewConfig(deps.dryRun, req, deps.testBudgetMs);
  const config = deps.current();
  if (!config)
    return {
      kind: 'resource',
      result: 'skipped',
      verdict: {
        allowed: true,
        warnings: ['haptic has no configuration in force yet: the object was not checked'],
      },
    };
  const watched = watchedFor(config, req);
  if (watched.length === 0 || req.operation === 'CONNECT')
    return { kind: 'resource', result: 'skipped', verdict: { allowed: true } };
  return reviewObject(deps, config, req, watched);
}
