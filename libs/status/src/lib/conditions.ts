/** One condition of the HAProxyTemplateConfig status, as the API stores it. */
export interface Condition {
  readonly type: 'Valid' | 'Rendered' | 'Deployed' | 'Ready';
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

/** A condition before its transition time is known. */
export type ConditionValue = Omit<Condition, 'lastTransitionTime'>;

/** What the controller has seen of its config, renders and deployments (tracked on every replica). */
export interface ObservedWorld {
  /** The config in force (the last accepted generation), if any. */
  readonly accepted?: { readonly generation: number };
  /** The newest generation refused by the schema, when newer than the accepted one. */
  readonly rejected?: { readonly generation: number; readonly message: string };
  /** The last render outcome (of the config in force). */
  readonly render?:
    | { readonly ok: true; readonly hash: string; readonly quarantined: number }
    | { readonly ok: false; readonly stage: 'render' | 'validation'; readonly message: string };
  /** The newest validated render and the generation it was rendered with. */
  readonly validated?: { readonly hash: string; readonly generation: number };
  /** The HAProxy pods and what each last reported. */
  readonly pods: readonly PodState[];
}

export interface PodState {
  readonly name: string;
  readonly deployedHash: string;
  readonly lastReload?: string;
  readonly lastError?: string;
}

const short = (hash: string) => hash.slice(0, 12);

function valid(w: ObservedWorld, gen: number): ConditionValue {
  if (w.rejected)
    return {
      type: 'Valid',
      status: 'False',
      reason: 'InvalidSpec',
      message: w.rejected.message,
      observedGeneration: gen,
    };
  if (!w.accepted)
    return {
      type: 'Valid',
      status: 'Unknown',
      reason: 'Pending',
      message: 'no configuration accepted yet',
      observedGeneration: gen,
    };
  if (w.render && !w.render.ok)
    return {
      type: 'Valid',
      status: 'False',
      reason: w.render.stage === 'render' ? 'RenderFailed' : 'ValidationFailed',
      message: w.render.message,
      observedGeneration: gen,
    };
  return {
    type: 'Valid',
    status: 'True',
    reason: 'Accepted',
    message: 'the configuration is accepted',
    observedGeneration: gen,
  };
}

function rendered(w: ObservedWorld, gen: number): ConditionValue {
  const r = w.render;
  if (!r)
    return {
      type: 'Rendered',
      status: 'Unknown',
      reason: 'Pending',
      message: 'not rendered yet',
      observedGeneration: gen,
    };
  if (!r.ok)
    return {
      type: 'Rendered',
      status: 'False',
      reason: r.stage === 'render' ? 'RenderFailed' : 'ValidationFailed',
      message: r.message,
      observedGeneration: gen,
    };
  const q = r.quarantined > 0 ? `; ${r.quarantined} object(s) quarantined (see Events)` : '';
  return {
    type: 'Rendered',
    status: 'True',
    reason: r.quarantined > 0 ? 'RenderedWithQuarantine' : 'Rendered',
    message: `rendered ${short(r.hash)}${q}`,
    observedGeneration: gen,
  };
}

function deployed(w: ObservedWorld): ConditionValue {
  const v = w.validated;
  const gen = v?.generation ?? w.accepted?.generation ?? 0;
  if (!v)
    return {
      type: 'Deployed',
      status: 'Unknown',
      reason: 'Pending',
      message: 'nothing validated yet',
      observedGeneration: gen,
    };
  if (w.pods.length === 0)
    return {
      type: 'Deployed',
      status: 'False',
      reason: 'NoPods',
      message: 'no HAProxy pod matches podSelector',
      observedGeneration: gen,
    };
  const done = w.pods.filter((p) => p.deployedHash === v.hash).length;
  const failed = w.pods.find((p) => p.deployedHash !== v.hash && p.lastError);
  const message = `${done} of ${w.pods.length} HAProxy pods run ${short(v.hash)}`;
  if (done === w.pods.length)
    return {
      type: 'Deployed',
      status: 'True',
      reason: 'Deployed',
      message,
      observedGeneration: gen,
    };
  if (failed)
    return {
      type: 'Deployed',
      status: 'False',
      reason: 'DeploymentFailed',
      message: `${message}; ${failed.name}: ${failed.lastError ?? ''}`,
      observedGeneration: gen,
    };
  return {
    type: 'Deployed',
    status: 'False',
    reason: 'Deploying',
    message,
    observedGeneration: gen,
  };
}

function ready(w: ObservedWorld, conds: readonly ConditionValue[], gen: number): ConditionValue {
  const [v, , d] = conds as [ConditionValue, ConditionValue, ConditionValue];
  if (d.status === 'True' && v.status === 'True')
    return {
      type: 'Ready',
      status: 'True',
      reason: 'Serving',
      message: `serving generation ${d.observedGeneration ?? gen}`,
      observedGeneration: gen,
    };
  if (v.status === 'False' && d.status === 'True')
    return {
      type: 'Ready',
      status: 'False',
      reason: v.reason,
      message: `generation ${gen} is not served; generation ${w.validated?.generation ?? 0} keeps serving`,
      observedGeneration: gen,
    };
  const cause = v.status !== 'True' ? v : d;
  return {
    type: 'Ready',
    status: cause.status === 'Unknown' ? 'Unknown' : 'False',
    reason: cause.reason,
    message: cause.message,
    observedGeneration: gen,
  };
}

/** The four conditions (Valid, Rendered, Deployed, Ready) the world implies. */
export function desiredConditions(w: ObservedWorld): ConditionValue[] {
  const gen = w.rejected?.generation ?? w.accepted?.generation ?? 0;
  const renderGen = w.accepted?.generation ?? gen;
  const conds = [valid(w, gen), rendered(w, renderGen), deployed(w)];
  return [...conds, ready(w, conds, gen)];
}

/**
 * Merges new condition values over the stored ones as apimachinery's SetStatusCondition does:
 * lastTransitionTime changes only when a condition's status changes.
 */
export function mergeConditions(
  stored: readonly Condition[],
  next: readonly ConditionValue[],
  now: string,
): Condition[] {
  return next.map((c) => {
    const old = stored.find((s) => s.type === c.type);
    const lastTransitionTime = old && old.status === c.status ? old.lastTransitionTime : now;
    return { ...c, lastTransitionTime };
  });
}
