import type { RenderedOutputs, SourceMaps } from './outputs.js';

/** What one embedded test asks the renderer for: fixtures per watched resource, extra context. */
export interface FixtureRenderRequest {
  readonly fixtures: Readonly<Record<string, readonly unknown[]>>;
  /** The complete `extra` context (already merged: templatingSettings, `_global`, the test). */
  readonly extraContext: Readonly<Record<string, unknown>>;
}

/** Why a render failed, with the template location and object when the renderer knows them. */
export interface RenderFailure {
  readonly message: string;
  readonly template?: string;
  readonly line?: number;
  readonly column?: number;
  readonly object?: string;
}

/** A render's result: outputs (with source maps and the context used) or the failure. */
export type RenderOutcome =
  | {
      readonly ok: true;
      readonly outputs: RenderedOutputs;
      readonly sourceMaps?: SourceMaps;
      /** The template context (`resources`, `controller`, `extra`) for jsonpath assertions. */
      readonly context?: unknown;
    }
  | { readonly ok: false; readonly error: RenderFailure };

/**
 * Port: renders the (already compiled) config from fixtures, indexed as in production. The
 * application implements it over the render and index libraries; this lib never imports them.
 */
export interface FixtureRenderer {
  render(request: FixtureRenderRequest): Promise<RenderOutcome>;
}

/** `template "x" line 3:5, object y: message` — a render failure in one line. */
export function formatRenderFailure(e: RenderFailure): string {
  const parts: string[] = [];
  if (e.template !== undefined) {
    const at =
      e.line === undefined ? '' : ` line ${e.line}${e.column === undefined ? '' : `:${e.column}`}`;
    parts.push(`template "${e.template}"${at}`);
  }
  if (e.object !== undefined) parts.push(`object ${e.object}`);
  return parts.length > 0 ? `${parts.join(', ')}: ${e.message}` : e.message;
}
