import { Controller, Get, Inject, NotFoundException } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { redactEvent, redactPem } from './redact.js';

/** /debug: read-only JSON views of the controller's state, redacted. */
@Controller('debug')
export class DebugController {
  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {}

  @Get()
  index(): { endpoints: string[] } {
    return {
      endpoints: [
        '/debug/config',
        '/debug/rendered',
        '/debug/pods',
        '/debug/events',
        '/debug/leader',
        '/debug/bus',
      ],
    };
  }

  /** The configuration in force (a config holds no secrets: credentials live in their Secret). */
  @Get('config')
  config(): unknown {
    const current = this.bus.getState('config.current');
    if (!current) throw new NotFoundException('no configuration accepted yet');
    return current;
  }

  /** The newest validated render; private keys are never shown. */
  @Get('rendered')
  rendered(): unknown {
    const r = this.bus.getState('render.validated');
    if (!r) throw new NotFoundException('nothing rendered and validated yet');
    const certs = Object.fromEntries(
      Object.entries(r.outputs.sslCertificates).map(([k, v]) => [k, redactPem(v)]),
    );
    return {
      hash: r.hash,
      configGeneration: r.configGeneration,
      outputs: { ...r.outputs, sslCertificates: certs },
    };
  }

  @Get('pods')
  pods(): unknown {
    return { pods: this.bus.getState('haproxy.pods') ?? [] };
  }

  @Get('leader')
  leader(): unknown {
    return this.bus.getState('leader.status') ?? { isLeader: false, identity: 'unknown' };
  }

  /** Recent events with their correlation ids, oldest first. */
  @Get('events')
  events(): unknown {
    return { events: this.bus.history().map(redactEvent) };
  }

  @Get('bus')
  busStats(): unknown {
    return { topics: this.bus.stats() };
  }
}
