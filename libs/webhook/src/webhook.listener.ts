import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { TemplateConfig } from '#core';
import { EVENT_BUS } from '#bus';
import type { HapticBus, RenderedOutputs } from '#events';

/**
 * Keeps what reviews compare with, on every replica: the config in force (config.current) and the
 * newest render known to pass `haproxy -c` under it — the leader's render.validated, or a dry run
 * of this replica's that passed the full check, whichever came last.
 */
@Injectable()
export class WebhookListener implements OnModuleDestroy {
  private readonly unsubscribe: (() => void)[] = [];
  private passed: { config: TemplateConfig; outputs: RenderedOutputs } | undefined;

  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {
    this.unsubscribe.push(
      this.bus.subscribeState(
        'render.validated',
        (e) => {
          const r = e.payload;
          // a render checked only in its runtime parts becomes a baseline once the whole passed
          if (!r.pendingCheck) return this.pass(r);
          void r.pendingCheck.then((ok) => {
            if (ok && this.bus.getState('render.validated') === r) this.pass(r);
          });
        },
        { name: 'webhook' },
      ),
    );
  }

  private pass(r: { configGeneration: number; outputs: RenderedOutputs }): void {
    const config = this.current();
    if (config && (config.source.generation ?? 0) === r.configGeneration)
      this.passed = { config, outputs: r.outputs };
  }

  /** The config in force (undefined before the first is accepted). */
  current(): TemplateConfig | undefined {
    return this.bus.getState('config.current');
  }

  /** The newest render that passed `haproxy -c` under `config`, if any. */
  baseline(config: TemplateConfig): RenderedOutputs | undefined {
    return this.passed?.config === config ? this.passed.outputs : undefined;
  }

  /** Records a dry run that passed `haproxy -c` under `config`. */
  remember(config: TemplateConfig, outputs: RenderedOutputs): void {
    this.passed = { config, outputs };
  }

  onModuleDestroy(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }
}
