import { RejectedObjectsError } from '../provenance.js';
import type { ContextProvider, ProviderContext, RenderSnapshot } from '../types.js';
import { ingressModel, type IngressModel } from './model.js';

function listed(
  snapshot: RenderSnapshot,
  context: ProviderContext,
  watched: string,
): readonly object[] {
  return context.watched.includes(watched) ? snapshot.list(watched) : [];
}

/**
 * `ingress`: the Ingress library's model of the snapshot (served Ingresses, routes, backends,
 * default backend), computed once per render on first use. Reads `resources.ingresses` and
 * `resources.ingressclasses` and `extra.controller_name`. Ingresses it refuses are reported all
 * at once (RejectedObjectsError), so quarantining them costs one more render, not one each.
 */
export const ingressProvider: ContextProvider = {
  name: 'ingress',
  lazy: true,
  provide(snapshot: RenderSnapshot, context: ProviderContext): IngressModel {
    const { model, problems } = ingressModel(
      {
        ingressClasses: listed(snapshot, context, 'ingressclasses'),
        ingresses: listed(snapshot, context, 'ingresses'),
        controllerName: context.extra['controller_name'],
      },
      // a full render builds the model afresh (what incremental renders are checked against)
      { reuse: context.incremental !== false },
    );
    if (problems.length > 0) throw new RejectedObjectsError(problems);
    return model;
  },
};
