import { Injectable } from '@nestjs/common';
import {
  TemplateContext,
  type ProviderContext,
  type RenderSnapshot,
  type TemplateContextSource,
} from 'haptic';
import { RenderCounter } from './render-counter.js';

/** What templates see as `team`. */
export interface TeamContextValue {
  readonly greeting: string;
  /** Ingresses in the snapshot being rendered (0 when the config watches none). */
  readonly ingresses: number;
  /** Renders this module saw completed before this one. */
  readonly renders_before: number;
}

/**
 * The template variable `team`, computed from each snapshot: `{{ team.greeting }}` and
 * `{{ team.ingresses }}` work in any template of the HAProxyTemplateConfig.
 */
@TemplateContext({ name: 'team' })
@Injectable()
export class TeamContext implements TemplateContextSource {
  constructor(private readonly renders: RenderCounter) {}

  provide(snapshot: RenderSnapshot, context: ProviderContext): TeamContextValue {
    return {
      greeting: 'hello from the example module',
      ingresses: context.watched.includes('ingresses') ? snapshot.list('ingresses').length : 0,
      renders_before: this.renders.seen,
    };
  }
}
