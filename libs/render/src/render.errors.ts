import { HapticError, type HapticErrorOptions } from '#core';
import { formatProblem } from './lib/problems.js';
import type { RenderProblem } from './lib/types.js';

/** The templates of a config version do not compile (syntax, unknown filter/tag/name/snippet). */
export class TemplateCompileError extends HapticError {
  readonly code = 'HAPTIC_TEMPLATE_COMPILE';
  constructor(
    readonly problems: readonly RenderProblem[],
    options: HapticErrorOptions = {},
  ) {
    super(`templates do not compile: ${problems.map(formatProblem).join('; ')}`, {
      ...options,
      details: { problems },
    });
  }
}

/** A render failed for a reason no single watched object explains; the last good config stays. */
export class RenderFailedError extends HapticError {
  readonly code = 'HAPTIC_RENDER_FAILED';
  constructor(
    readonly problems: readonly RenderProblem[],
    options: HapticErrorOptions = {},
  ) {
    super(`render failed: ${problems.map(formatProblem).join('; ')}`, {
      ...options,
      details: { problems },
    });
  }
}

/** render() was called before any config version compiled. */
export class NoTemplatesError extends HapticError {
  readonly code = 'HAPTIC_RENDER_NO_TEMPLATES';
}
