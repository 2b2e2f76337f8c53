import type { FactoryProvider } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import { INGRESS_STATUS_SOURCE, type HapticBus, type IngressStatusSource } from '#events';
import { ResourceIndex } from '#index';
import { ingressModel } from '#render';

/**
 * Glue between index, render and status (which must not know each other): the Ingresses the
 * Ingress model serves from the current index and config — the same selection the templates
 * render (class, validity, conflicts) — for the status writer.
 */
export const ingressStatusSourceProvider: FactoryProvider<IngressStatusSource> = {
  provide: INGRESS_STATUS_SOURCE,
  inject: [ResourceIndex, EVENT_BUS],
  useFactory: (index: ResourceIndex, bus: HapticBus): IngressStatusSource => ({
    async ingresses() {
      const spec = bus.getState('config.current')?.spec;
      const watched = spec ? Object.keys(spec.watchedResources) : [];
      const names = spec
        ? Object.entries(spec.watchedResources)
            .filter(([, r]) => r.resources === 'ingresses' || r.resources === 'ingressclasses')
            .map(([name, r]) => [r.resources, name] as const)
        : [];
      const nameOf = (plural: string) => names.find(([p]) => p === plural)?.[1];
      const ing = nameOf('ingresses');
      if (!spec || !ing || !watched.includes(ing)) return { served: [], all: [] };
      const snapshot = await index.snapshot();
      const cls = nameOf('ingressclasses');
      const all: readonly object[] = snapshot.list(ing);
      const { model } = ingressModel({
        ingresses: all,
        ingressClasses: cls ? snapshot.list(cls) : [],
        controllerName: spec.templatingSettings.extraContext['controller_name'],
      });
      return { served: model.served, all };
    },
    async object(watched, namespace, name) {
      const snapshot = await index.snapshot();
      return snapshot
        .list(watched)
        .find((o) => o.metadata.name === name && o.metadata.namespace === namespace);
    },
  }),
};
