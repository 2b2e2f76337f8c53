import type { TemplateConfig } from '#core';
import type {
  AdmissionDryRunPort,
  DryRunRender,
  DryRunVerdict,
  KubeObject,
  OverlayChange,
  RenderedOutputs,
} from '#events';
import type { IndexSnapshot, ResourceIndex } from '#index';
import {
  formatProblem as formatRenderProblem,
  render,
  type CompiledTemplates,
  type RenderProblem,
  type RenderService,
  type RenderSnapshot,
} from '#render';
import {
  formatProblem,
  runValidationTests,
  specValidateOptions,
  validateOutputs,
  type ValidationService,
} from '#validation';
import { OfflineRenderer } from '../cli/offline-renderer.js';

type Compiled = { ok: true; value: CompiledTemplates } | { ok: false; error: RenderProblem[] };

/**
 * Wall-clock budget of one dry-run render attempt: with `haproxy -c` after it, a review stays
 * well inside the API server's default webhook timeout (10 s) and the server's own 9 s answer.
 */
export const DRY_RUN_RENDER_LIMIT_MS = 4_000;

const DRY_RUN_CONTROLLER = { haproxy_pods: [], is_leader: false } as const;

/** A snapshot in which resources the index does not hold (a new config's) are empty. */
function lenient(s: IndexSnapshot): RenderSnapshot {
  const known = new Set(s.names());
  return {
    list: (w) => (known.has(w) ? s.list(w) : []),
    lookup: (w, keys) => (known.has(w) ? s.lookup(w, keys) : []),
  };
}

/**
 * The webhook's dry runs over the same index, renderer (context providers included) and
 * checker the reconcile loop uses: glue between modules that must not know each other.
 * Compiled templates are kept for the last two config versions seen.
 */
export class AdmissionDryRun implements AdmissionDryRunPort {
  private readonly compiled: { config: TemplateConfig; result: Compiled }[] = [];
  /** The index version each compiled config's fragment cache was last rendered from. */
  private readonly warmAt = new WeakMap<CompiledTemplates, number>();

  constructor(
    private readonly index: ResourceIndex,
    private readonly renderer: RenderService,
    private readonly validation: ValidationService,
  ) {}

  async list(watched: string): Promise<readonly KubeObject[]> {
    const s = await this.index.snapshot();
    return s.names().includes(watched) ? s.list(watched) : [];
  }

  async render(config: TemplateConfig, changes: readonly OverlayChange[]): Promise<DryRunRender> {
    const compiled = this.compile(config);
    if (!compiled.ok)
      return {
        ok: false,
        reason: `templates do not compile: ${compiled.error.map(formatRenderProblem).join('; ')}`,
      };
    const base = await this.index.snapshot();
    this.warm(compiled.value, base);
    const known = new Set(base.names());
    const snapshot = base.withOverlay(changes.filter((c) => known.has(c.resource)));
    // Incremental over the cache the index's own render left, which this render does not change.
    const result = render(compiled.value, lenient(snapshot), {
      controller: DRY_RUN_CONTROLLER,
      timeLimitMs: DRY_RUN_RENDER_LIMIT_MS,
      reuseOnly: true,
    });
    const quarantined = result.quarantined.map((q) => ({
      watched: q.object.watched,
      name: q.object.name,
      ...(q.object.namespace === undefined ? {} : { namespace: q.object.namespace }),
      reason: q.problem.message,
    }));
    if (!result.ok) return { ok: false, reason: result.problems.map((p) => p.message).join('; ') };
    return { ok: true, outputs: result.outputs, quarantined };
  }

  async validate(
    config: TemplateConfig,
    outputs: RenderedOutputs,
    haproxyCheck: boolean,
  ): Promise<DryRunVerdict> {
    const result = haproxyCheck
      ? await this.validation.validate(config.spec, outputs)
      : await validateOutputs(outputs, specValidateOptions(config.spec));
    return result.valid
      ? { ok: true }
      : { ok: false, reason: result.problems.map(formatProblem).join('; ') };
  }

  async runTests(config: TemplateConfig): Promise<DryRunVerdict> {
    const { spec } = config;
    if (Object.keys(spec.validationTests).length === 0) return { ok: true };
    const report = await runValidationTests(
      spec,
      new OfflineRenderer(config, this.renderer.contextProviders),
      {
        workers: 2,
        validate: (outputs, sourceMaps) =>
          validateOutputs(outputs, {
            ...specValidateOptions(spec),
            checker: this.validation.checker,
            ...(sourceMaps ? { sourceMaps } : {}),
          }),
      },
    );
    if (report.passed) return { ok: true };
    const failed = report.tests.filter((t) => !t.passed);
    const why = failed.slice(0, 3).map((t) => {
      const a = t.assertions.find((x) => !x.passed);
      return `${t.name}: ${t.renderError ?? a?.message ?? 'failed'}`;
    });
    return {
      ok: false,
      reason: `${failed.length} of ${report.tests.length} fail (${why.join('; ')})`,
    };
  }

  /**
   * Renders the index as it is (keeping its fragments) when it changed since the last time, so a
   * dry run re-renders only what the proposed object touches.
   */
  private warm(compiled: CompiledTemplates, base: IndexSnapshot): void {
    if (this.warmAt.get(compiled) === base.version) return;
    render(compiled, lenient(base), {
      controller: DRY_RUN_CONTROLLER,
      timeLimitMs: DRY_RUN_RENDER_LIMIT_MS,
    });
    this.warmAt.set(compiled, base.version);
  }

  private compile(config: TemplateConfig): Compiled {
    const hit = this.compiled.find((c) => c.config === config);
    if (hit) return hit.result;
    const result = this.renderer.compileDetached(config);
    this.compiled.unshift({ config, result });
    this.compiled.length = Math.min(this.compiled.length, 2);
    return result;
  }
}
