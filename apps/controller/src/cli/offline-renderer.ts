import type { DeepReadonly, TemplateConfig, TemplateConfigSpec } from '#core';
import { snapshotOf, type IndexSnapshot } from '#index';
import {
  compileTemplates,
  render,
  type CompiledTemplates,
  type ContextProvider,
  type RenderProblem,
} from '#render';
import type {
  FixtureRenderer,
  FixtureRenderRequest,
  RenderFailure,
  RenderOutcome,
} from '#validation';
import { HAPTIC_CONTEXT_PROVIDERS } from '../run/gateway-context.js';

/** The renderer's problems as validation shows them. */
export function renderFailure(p: RenderProblem): RenderFailure {
  const o = p.object;
  return {
    message: p.message,
    template: p.template,
    ...(p.line === undefined ? {} : { line: p.line }),
    ...(p.column === undefined ? {} : { column: p.column }),
    ...(o ? { object: `${o.watched}/${o.namespace ? `${o.namespace}/` : ''}${o.name}` } : {}),
  };
}

/** Indexes fixtures exactly as production does (see snapshotOf). */
function indexFixtures(
  spec: DeepReadonly<TemplateConfigSpec>,
  fixtures: FixtureRenderRequest['fixtures'],
): IndexSnapshot {
  return snapshotOf(
    Object.fromEntries(Object.entries(spec.watchedResources).map(([n, w]) => [n, w.indexBy])),
    fixtures as Readonly<Record<string, readonly object[]>>,
  );
}

/** The template context as templates see it, for jsonpath assertions. */
function contextOf(
  spec: DeepReadonly<TemplateConfigSpec>,
  snapshot: IndexSnapshot,
  extra: unknown,
): unknown {
  const resources = Object.fromEntries(
    Object.keys(spec.watchedResources).map((n) => [n, snapshot.list(n)]),
  );
  return { resources, extra, controller: { haproxy_pods: [], is_leader: true } };
}

/**
 * A FixtureRenderer over the real renderer and index: compiles the config once, indexes each
 * test's fixtures like production, renders with the test's extra values and quarantine off (so a
 * test sees the error an object causes instead of the object silently left out).
 */
export class OfflineRenderer implements FixtureRenderer {
  private readonly compiled: CompiledTemplates | RenderProblem[];

  /** `providers`: the modules' own template variables (the built-in ones are always there). */
  constructor(
    private readonly config: TemplateConfig,
    providers: readonly ContextProvider[] = [],
  ) {
    const result = compileTemplates(config.spec, {
      configVersion: 'offline',
      // haptic's own (e.g. `gateway`), unless the caller's list already carries them
      providers: [
        ...HAPTIC_CONTEXT_PROVIDERS.filter((h) => !providers.some((p) => p.name === h.name)),
        ...providers,
      ],
    });
    this.compiled = result.ok ? result.value : result.error;
  }

  /** Problems that make the templates unusable (syntax, unknown names, filters, snippets). */
  compileProblems(): readonly RenderProblem[] {
    return Array.isArray(this.compiled) ? this.compiled : [];
  }

  render(req: FixtureRenderRequest): Promise<RenderOutcome> {
    return Promise.resolve(this.renderNow(req));
  }

  private renderNow(req: FixtureRenderRequest): RenderOutcome {
    const compiled = this.compiled;
    if (Array.isArray(compiled)) {
      const first = compiled[0];
      return {
        ok: false,
        error: first ? renderFailure(first) : { message: 'templates do not compile' },
      };
    }
    let snapshot: IndexSnapshot;
    try {
      snapshot = indexFixtures(this.config.spec, req.fixtures);
    } catch (e) {
      return {
        ok: false,
        error: { message: `fixtures cannot be indexed: ${(e as Error).message}` },
      };
    }
    const result = render(compiled, snapshot, {
      maxQuarantine: 0,
      extra: req.extraContext,
      controller: { haproxy_pods: [], is_leader: true, config_version: 'offline' },
    });
    if (!result.ok) {
      const first = result.problems[0];
      return { ok: false, error: first ? renderFailure(first) : { message: 'render failed' } };
    }
    return {
      ok: true,
      outputs: result.outputs,
      context: contextOf(this.config.spec, snapshot, req.extraContext),
    };
  }
}
