import { Inject, Injectable } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import {
  INGRESS_STATUS_SOURCE,
  type HapticBus,
  type IngressStatusSource,
  type RenderNoticeFact,
} from '#events';
import { EventRecorder } from './event-recorder.js';
import type { InvolvedObject } from './lib/event-aggregator.js';
import { involvedObject } from './lib/involved.js';
import { NoticeTracker } from './lib/notice-tracker.js';
import { STATUS_API, STATUS_OPTIONS, type StatusModuleOptions } from './status.tokens.js';
import type { StatusApi } from './status-api.js';

/**
 * Turns facts into Kubernetes Events while this replica leads (the StatusWriter starts it):
 * an invalid config, a failed render or validation and a failed deployment on the
 * HAProxyTemplateConfig; a quarantined object on that object; a render notice (an annotation
 * served without effect) on its object, once when it appears (render.notices state).
 */
@Injectable()
export class StatusRecorderListener {
  private configUid: { key: string; uid: string } | undefined;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Inject(STATUS_API) private readonly api: StatusApi,
    @Inject(STATUS_OPTIONS) private readonly options: StatusModuleOptions,
    @Inject(INGRESS_STATUS_SOURCE) private readonly objects: IngressStatusSource,
    private readonly recorder: EventRecorder,
  ) {}

  /** Subscribes; returns the unsubscribers. */
  start(): (() => void)[] {
    const b = this.bus;
    const name = { name: 'status-events' };
    const onConfig = (reason: string, message: string) => this.onConfig(reason, message);
    // a new leader starts afresh: the notices current when it starts get their Events
    const notices = new NoticeTracker();
    return [
      b.subscribeState(
        'render.notices',
        async (e) => {
          for (const n of notices.fresh(e.payload)) await this.onNotice(n);
        },
        name,
      ),
      b.subscribe(
        'config.rejected',
        (e) =>
          onConfig(
            'InvalidConfig',
            e.payload.problems.map((p) => `${p.path}: ${p.reason}`).join('; '),
          ),
        name,
      ),
      b.subscribe('render.failed', (e) => onConfig('RenderFailed', e.payload.reason), name),
      b.subscribe('validation.failed', (e) => onConfig('ValidationFailed', e.payload.reason), name),
      b.subscribe(
        'deploy.failed',
        (e) => onConfig('DeploymentFailed', `${e.payload.pod}: ${e.payload.reason}`),
        name,
      ),
      b.subscribe('object.quarantined', (e) => this.onQuarantined(e.payload), name),
    ];
  }

  private async configObject(): Promise<InvolvedObject | undefined> {
    const source = this.bus.getState('config.current')?.source;
    const namespace = source?.namespace ?? this.options.config.namespace;
    const name = source?.name ?? this.options.config.name;
    const key = `${namespace}/${name}`;
    if (this.configUid?.key !== key) {
      const stored = await this.api.readConfig(namespace, name).catch(() => undefined);
      if (!stored) return undefined;
      this.configUid = { key, uid: stored.uid };
    }
    return {
      apiVersion: 'haproxy-haptic.org/v1alpha1',
      kind: 'HAProxyTemplateConfig',
      namespace,
      name,
      uid: this.configUid.uid,
    };
  }

  private async onConfig(reason: string, message: string): Promise<void> {
    const involved = await this.configObject();
    if (involved) await this.recorder.record({ involved, type: 'Warning', reason, message });
  }

  private async onQuarantined(p: {
    watched: string;
    object: { namespace?: string; name: string };
    reason: string;
  }): Promise<void> {
    const resource = this.bus.getState('config.current')?.spec.watchedResources[p.watched];
    if (!resource) return;
    const object = await this.objects.object(p.watched, p.object.namespace, p.object.name);
    const involved = involvedObject(resource, p.object, object);
    if (!involved) return;
    const message = `left out of the HAProxy configuration: ${p.reason}`;
    await this.recorder.record({ involved, type: 'Warning', reason: 'Quarantined', message });
  }

  private async onNotice(n: RenderNoticeFact): Promise<void> {
    const resource = this.bus.getState('config.current')?.spec.watchedResources[n.watched];
    if (!resource) return;
    const object = await this.objects.object(n.watched, n.object.namespace, n.object.name);
    const involved = involvedObject(resource, n.object, object);
    if (!involved) return;
    await this.recorder.record({ involved, type: 'Warning', reason: n.reason, message: n.message });
  }
}
