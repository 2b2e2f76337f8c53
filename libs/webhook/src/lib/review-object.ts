import type { TemplateConfig } from '#core';
import type { AdmissionDryRunPort, KubeObject, OverlayChange, RenderedOutputs } from '#events';
import type { AdmissionRequest, Review } from './admission-review.js';
import { servedByClass } from './ingress-class.js';
import { onlyRuntimeChanges } from './runtime-only.js';
import { fieldsWithControlCharacters } from './suspect-fields.js';

/** What reviewing a watched object needs besides the request. */
export interface ObjectReviewDeps {
  readonly dryRun: AdmissionDryRunPort;
  /** The newest render known to pass `haproxy -c` under `config`, if any. */
  baseline(config: TemplateConfig): RenderedOutputs | undefined;
  /** A dry-run render that passed `haproxy -c` (a later review may compare with it). */
  passed(config: TemplateConfig, outputs: RenderedOutputs): void;
}

const apiVersionOf = (r: AdmissionRequest['resource']) =>
  r.group === '' ? r.version : `${r.group}/${r.version}`;

/** Names of the watched resources of `config` that this request is about and that enable the webhook. */
export function watchedFor(config: TemplateConfig, req: AdmissionRequest): string[] {
  if (req.subResource) return [];
  const apiVersion = apiVersionOf(req.resource);
  return Object.entries(config.spec.watchedResources)
    .filter(
      ([, w]) =>
        w.enableValidationWebhook &&
        w.apiVersion === apiVersion &&
        w.resources === req.resource.resource,
    )
    .map(([name]) => name);
}

function describe(req: AdmissionRequest, o: KubeObject): string {
  const ns = o.metadata.namespace ?? req.namespace;
  return `${req.kind.kind} ${ns ? `${ns}/` : ''}${o.metadata.name}`;
}

/** Objects of another ingress class are not this controller's: allowed without a render. */
async function otherClass(
  dryRun: AdmissionDryRunPort,
  config: TemplateConfig,
  req: AdmissionRequest,
  o: KubeObject,
): Promise<boolean> {
  if (req.resource.group !== 'networking.k8s.io' || req.resource.resource !== 'ingresses')
    return false;
  const controller = config.spec.templatingSettings.extraContext['controller_name'];
  const classes = Object.entries(config.spec.watchedResources).find(
    ([, w]) => w.apiVersion === 'networking.k8s.io/v1' && w.resources === 'ingressclasses',
  );
  if (typeof controller !== 'string' || !classes) return false;
  const list = await dryRun.list(classes[0]);
  const before = req.operation === 'UPDATE' && req.oldObject ? req.oldObject : undefined;
  // an update that takes an Ingress away from us still changes what we serve: render it
  return (
    !servedByClass(o, list, controller) && !(before && servedByClass(before, list, controller))
  );
}

/** Dry-run review of a watched object: render with it overlaid, then validate. */
export async function reviewObject(
  deps: ObjectReviewDeps,
  config: TemplateConfig,
  req: AdmissionRequest,
  watched: readonly string[],
): Promise<Review> {
  const object = (req.operation === 'DELETE' ? req.oldObject : req.object) as KubeObject | null;
  const kind = 'resource' as const;
  if (!object?.metadata?.name) return { kind, result: 'allowed', verdict: { allowed: true } };
  if (req.operation !== 'DELETE' && (await otherClass(deps.dryRun, config, req, object)))
    return { kind, result: 'skipped', verdict: { allowed: true } };
  const what = describe(req, object);
  const deny = (reason: string): Review => ({
    kind,
    result: 'denied',
    // the renderer's reasons often name the object already
    verdict: {
      allowed: false,
      code: 400,
      message: reason.startsWith(`${what}: `) ? reason : `${what}: ${reason}`,
    },
  });
  const operation =
    req.operation === 'CREATE' ? 'create' : req.operation === 'DELETE' ? 'delete' : 'update';
  const changes: OverlayChange[] = watched.map((resource) => ({ resource, operation, object }));
  const rendered = await deps.dryRun.render(config, changes);
  if (!rendered.ok) return deny(rendered.reason);
  const mine = rendered.quarantined.find(
    (q) =>
      watched.includes(q.watched) &&
      q.name === object.metadata.name &&
      (q.namespace ?? '') === (object.metadata.namespace ?? req.namespace ?? ''),
  );
  if (mine) return deny(mine.reason);
  const base = deps.baseline(config);
  const haproxyCheck = !base || !onlyRuntimeChanges(base, rendered.outputs);
  const checked = await deps.dryRun.validate(config, rendered.outputs, haproxyCheck);
  if (!checked.ok) {
    const suspects = req.operation === 'DELETE' ? [] : fieldsWithControlCharacters(object);
    const hint = suspects.length ? ` (suspect field: ${suspects.join(', ')})` : '';
    return deny(`${checked.reason}${hint}`);
  }
  if (haproxyCheck) deps.passed(config, rendered.outputs);
  return { kind, result: 'allowed', verdict: { allowed: true }, haproxyCheck };
}
