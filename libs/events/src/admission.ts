import type { TemplateConfig } from '#core';
import type { KubeObject, OverlayChange } from './kube-ports.js';
import type { RenderedOutputs } from './ports.js';

/** A dry run's verdict: passed, or the short reason (naming object and field) it failed. */
export type DryRunVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** An object a dry-run render left out because of its content, and why. */
export interface DryRunQuarantine {
  readonly watched: string;
  readonly namespace?: string;
  readonly name: string;
  readonly reason: string;
}

/** What a dry-run render produced. */
export type DryRunRender =
  | {
      readonly ok: true;
      readonly outputs: RenderedOutputs;
      readonly quarantined: readonly DryRunQuarantine[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Port: the dry runs the admission webhook needs, over the same renderer, index and checker as
 * the reconcile loop (the application composes it; the webhook never imports those modules).
 */
export interface AdmissionDryRunPort {
  /** The objects of one watched resource in the index now. */
  list(watched: string): Promise<readonly KubeObject[]>;
  /** Renders `config` over the current index with `changes` overlaid. */
  render(config: TemplateConfig, changes: readonly OverlayChange[]): Promise<DryRunRender>;
  /** Structural checks, directive policy and, when `haproxyCheck`, one sandboxed `haproxy -c`. */
  validate(
    config: TemplateConfig,
    outputs: RenderedOutputs,
    haproxyCheck: boolean,
  ): Promise<DryRunVerdict>;
  /** The config's embedded validation tests. */
  runTests(config: TemplateConfig): Promise<DryRunVerdict>;
}

/** DI token of the AdmissionDryRunPort (provided by the application). */
export const ADMISSION_DRY_RUN = Symbol.for('haptic.AdmissionDryRun');
