import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';

/** One object the last render left out, and why. */
export interface QuarantineEntry {
  readonly watched: string;
  readonly namespace?: string;
  readonly name: string;
  readonly reason: string;
  /** When it was first left out (it stays listed while every render leaves it out). */
  readonly since: string;
}

const keyOf = (e: { watched: string; namespace?: string; name: string }) =>
  `${e.watched}/${e.namespace ?? ''}/${e.name}`;

/**
 * The objects the latest render quarantined (`object.quarantined` facts, closed by the
 * render's outcome), for /debug/quarantine; logs one warning when an object is first left out
 * and one line when it is served again. (Events and status reasons are written by libs/status.)
 */
@Injectable()
export class QuarantineLog implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Quarantine');
  private current = new Map<string, QuarantineEntry>();
  private pending = new Map<string, QuarantineEntry>();
  private readonly offs: (() => void)[] = [];

  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {}

  onModuleInit(): void {
    const name = { name: 'debug.quarantine' };
    this.offs.push(
      this.bus.subscribe(
        'object.quarantined',
        (e) => {
          const { watched, object, reason } = e.payload;
          const entry = { watched, ...object, reason };
          const key = keyOf(entry);
          const since = this.current.get(key)?.since ?? new Date(e.at).toISOString();
          this.pending.set(key, { ...entry, since });
        },
        name,
      ),
      this.bus.subscribe('render.completed', () => this.close(), name),
      this.bus.subscribe('render.failed', () => this.close(), name),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.offs.splice(0)) off();
  }

  private close(): void {
    for (const [key, e] of this.pending) {
      if (!this.current.has(key)) {
        const ref = `${e.namespace === undefined ? '' : `${e.namespace}/`}${e.name}`;
        this.logger.warn(`quarantined ${e.watched} ${JSON.stringify(ref)}: ${e.reason}`);
      }
    }
    for (const [key, e] of this.current) {
      if (!this.pending.has(key))
        this.logger.log(`no longer quarantined ${e.watched} ${JSON.stringify(e.name)}`);
    }
    this.current = this.pending;
    this.pending = new Map();
  }

  /** The objects the latest render left out, in key order. */
  list(): QuarantineEntry[] {
    return [...this.current.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);
  }
}
