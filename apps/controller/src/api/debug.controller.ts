import { Controller, Get, Inject, NotFoundException, Optional } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { ResourceIndex } from '#index';
import { ChangeLog } from './change-log.js';
import { DeploymentLog, reloadReason } from './deployment-log.js';
import { QuarantineLog } from './quarantine-log.js';
import { redactDeep, redactEvent } from './redact.js';

const ENDPOINTS = [
  '/debug/config',
  '/debug/rendered',
  '/debug/diff',
  '/debug/pods',
  '/debug/events',
  '/debug/resources',
  '/debug/leader',
  '/debug/bus',
  '/debug/quarantine',
  '/debug/notices',
  '/debug/changes',
] as const;

/** /debug: read-only JSON views of the controller's state; every answer passes redactDeep. */
@Controller('debug')
export class DebugController {
  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    private readonly deployments: DeploymentLog,
    private readonly quarantine: QuarantineLog,
    private readonly changes: ChangeLog,
    @Optional() private readonly index?: ResourceIndex,
  ) {}

  @Get()
  list(): { endpoints: readonly string[] } {
    return { endpoints: ENDPOINTS };
  }

  /** The configuration in force (credentials live in their Secret; keys are redacted anyway). */
  @Get('config')
  config(): unknown {
    const current = this.bus.getState('config.current');
    if (!current) throw new NotFoundException('no configuration accepted yet');
    return redactDeep(current);
  }

  /** The newest validated render; private keys are never shown. */
  @Get('rendered')
  rendered(): unknown {
    const r = this.bus.getState('render.validated');
    if (!r) throw new NotFoundException('nothing rendered and validated yet');
    return redactDeep({ hash: r.hash, configGeneration: r.configGeneration, outputs: r.outputs });
  }

  /** Per pod: the last deployment and why it did or did not reload HAProxy. */
  @Get('diff')
  diff(): unknown {
    const validated = this.bus.getState('render.validated')?.hash;
    const pods = [...this.deployments.all()].map(([pod, d]) => ({
      pod,
      hash: d.hash,
      upToDate: d.result === 'deployed' && d.hash === validated,
      reload: reloadReason(d),
      correlationId: d.correlationId,
    }));
    return redactDeep({ validatedHash: validated ?? null, pods });
  }

  /** The HAProxy pods deployed to, each with its deployment state. */
  @Get('pods')
  pods(): unknown {
    const validated = this.bus.getState('render.validated')?.hash;
    const pods = (this.bus.getState('haproxy.pods') ?? []).map((p) => {
      const last = this.deployments.of(`${p.namespace}/${p.name}`);
      const state = !last
        ? 'pending'
        : last.result === 'failed'
          ? 'failed'
          : last.hash === validated
            ? 'in-sync'
            : 'behind';
      const key = `${p.namespace}/${p.name}`;
      const deployer = this.bus.getState('dataplane.pods')?.find((d) => d.pod === key) ?? null;
      return { ...p, state, lastDeployment: last ?? null, deployer };
    });
    return redactDeep({ validatedHash: validated ?? null, pods });
  }

  @Get('leader')
  leader(): unknown {
    return this.bus.getState('leader.status') ?? { isLeader: false, identity: 'unknown' };
  }

  /** Recent events with their correlation ids, oldest first. */
  @Get('events')
  events(): unknown {
    return redactDeep({ events: this.bus.history().map(redactEvent) });
  }

  /** Objects (or references) held per watched resource. */
  @Get('resources')
  resources(): unknown {
    if (!this.index) throw new NotFoundException('no index in this process');
    return { synced: this.index.isSynced(), counts: this.index.counts() };
  }

  /** The objects the latest render left out, each with its reason. */
  @Get('quarantine')
  quarantined(): unknown {
    return redactDeep({ objects: this.quarantine.list() });
  }

  /**
   * What the last successful render reports about objects it served without something (e.g. an
   * annotation it does not honour); each is also a Warning Event on its object.
   */
  @Get('notices')
  notices(): unknown {
    return redactDeep({ notices: this.bus.getState('render.notices') ?? [] });
  }

  /** The last changes with their stage timings (ms) by correlation id, and those in flight. */
  @Get('changes')
  changeStages(): unknown {
    return redactDeep(this.changes.view());
  }

  @Get('bus')
  busStats(): unknown {
    return { topics: this.bus.stats() };
  }
}
