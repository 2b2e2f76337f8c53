// The canary part of the ingress-nginx library's model: the canary Ingresses are read apart
// from the mainlines (so a pair sharing host and path is never a conflict), then paired with the
// served mainlines (canary.ts).
import { objectRef } from '../snapshot.js';
import { byCodeUnits } from '../liquid-values.js';
import { sameItems } from '../same-items.js';
import type { RenderNotice, RenderProblem } from '../types.js';
import {
  ingressModel,
  servedReadsOf,
  type IngressBackend,
  type IngressInputs,
  type ReadIngress,
} from '../ingress/model.js';
import {
  isCanary,
  pairCanaries,
  readCanary,
  type CanaryBackend,
  type CanaryRules,
  type CanarySplit,
} from './canary.js';
import { NginxRefusal } from './reader.js';

/** The canary Ingresses of a snapshot, read. */
export interface CanaryPart {
  /** Every Ingress with `canary: "true"` (of any class): left out of the mainline model. */
  readonly all: ReadonlySet<object>;
  /** The canaries of our classes that could be read, oldest first. */
  readonly served: readonly object[];
  readonly reads: readonly { readonly read: ReadIngress; readonly rules: CanaryRules }[];
  /** The canaries refused (unreadable, a bad canary-* value, two canaries of one location). */
  readonly problems: readonly RenderProblem[];
}

// An Ingress object never changes in place: its flag holds while it is the same object.
const FLAG = new WeakMap<object, boolean>();

function canaryFlag(ing: object): boolean {
  let flag = FLAG.get(ing);
  if (flag !== undefined) return flag;
  try {
    flag = isCanary(ing);
  } catch (err) {
    if (!(err instanceof NginxRefusal)) throw err;
    flag = true; // read apart; its judging refuses the value
  }
  FLAG.set(ing, flag);
  return flag;
}

let last: { inputs: IngressInputs; part: CanaryPart } | undefined;

/** The canaries of `inputs` (the same objects give the same part: the model reuses it). */
export function canaryPart(inputs: IngressInputs): CanaryPart {
  const canaries = inputs.ingresses.filter(canaryFlag);
  const was = last;
  if (
    was &&
    was.inputs.controllerName === inputs.controllerName &&
    sameItems(was.inputs.ingressClasses, inputs.ingressClasses) &&
    sameItems(was.inputs.ingresses, canaries)
  )
    return was.part;
  const input = { ...inputs, ingresses: canaries };
  const { model, problems } = ingressModel(input, { reuse: false });
  const out: RenderProblem[] = [...problems];
  const reads: CanaryPart['reads'][number][] = [];
  for (const read of servedReadsOf(model)) {
    try {
      reads.push({ read, rules: readCanary(read.ing) });
    } catch (err) {
      if (!(err instanceof NginxRefusal)) throw err;
      out.push({
        code: 'invalid-value',
        template: 'context:nginx',
        message: err.message,
        object: objectRef('ingresses', read.ing),
      });
    }
  }
  const part = { all: new Set(canaries), served: model.served, reads, problems: out };
  last = { inputs: input, part };
  return part;
}

/** The served mainlines with their canaries: routes, backends (name order) and splits. */
export function withCanaries(
  served: readonly ReadIngress[],
  backends: readonly IngressBackend[],
  part: CanaryPart,
  notices: RenderNotice[],
): {
  served: readonly ReadIngress[];
  backends: readonly (IngressBackend | CanaryBackend)[];
  splits: readonly CanarySplit[];
} {
  if (part.reads.length === 0) return { served, backends, splits: [] };
  const byName = new Map(backends.map((b) => [b.name, b]));
  const paired = pairCanaries(served, part.reads, (n) => byName.get(n));
  for (const o of paired.orphans) {
    const at = o.claims.map((c) => `${c.host}${c.path}`).join(', ');
    notices.push({
      message: `Ingress ${o.id}: canary of no Ingress: no served Ingress has its host and path (${at}); ignored, as ingress-nginx ignores it`,
      object: objectRef('ingresses', o.ing),
      reason: 'CanaryWithoutMainline',
    });
  }
  return {
    served: paired.served,
    backends: [...backends, ...paired.backends].sort((a, b) => byCodeUnits(a.name, b.name)),
    splits: paired.splits,
  };
}
