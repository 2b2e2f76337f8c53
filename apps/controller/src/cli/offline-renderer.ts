import type { DeepReadonly, TemplateConfig, TemplateConfigSpec } from '#core';
import { ResourceIndex, type IndexSnapshot, type KubeObject } from '#index';
import { compileTemplates, render, type CompiledTemplates, type RenderProblem } from '#render';
import type {
  FixtureRenderer,
  FixtureRenderRequest,
  RenderFailure,
  RenderOutcome,
} from '#validation';

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

/** Indexes fixtures exactly as production does (ResourceIndex, every store kept in full). */
async function indexFixtures(
  spec: DeepReadonly<TemplateConfigSpec>,
  fixtures: FixtureRenderRequest['fixtures'],
): Promise<IndexSnapshot> {
  const index = new ResourceIndex();
  // Offline there is no API server to fetch on-demand objects from: keep every store in full.
  index.configure(
    Object.fromEntries(
      Object.entries(spec.watchedResources).map(([n, w]) => [
        n,
        { indexBy: w.indexBy, store: 'full' as const },
      ]),
    ),
  );
  for (const name of Object.keys(spec.watchedResources)) {
    index.reset(name, undefined, (fixtures[name] ?? []) as KubeObject[]);
    index.listed(name);
  }
  return index.snapshot();
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
 * A FixtureRenderer over the real renderer and index: compiles the config once per distinct
 * extraContext, indexes each test's fixtures like production, renders with quarantine off (so a
 * test sees the error an object causes instead of the object silently left out).
 */
export class OfflineRenderer implements FixtureRenderer {
  private readonly compiled = new Map<string, CompiledTemplates | RenderProblem[]>();

  constructor(private readonly config: TemplateConfig) {}

  /** Compiles with the config's own extraContext; problems mean the templates are unusable. */
  compileProblems(): readonly RenderProblem[] {
    const c = this.compile(this.config.spec.templatingSettings.extraContext);
    return Array.isArray(c) ? c : [];
  }

  private compile(extra: Readonly<Record<string, unknown>>): CompiledTemplates | RenderProblem[] {
    const key = JSON.stringify(extra);
    let c = this.compiled.get(key);
    if (!c) {
      const spec = { ...this.config.spec, templatingSettings: { extraContext: extra } };
      const result = compileTemplates(spec, { configVersion: 'offline' });
      c = result.ok ? result.value : result.error;
      this.compiled.set(key, c);
    }
    return c;
  }

  async render(req: FixtureRenderRequest): Promise<RenderOutcome> {
    const compiled = this.compile(req.extraContext);
    if (Array.isArray(compiled)) {
      const first = compiled[0];
      return {
        ok: false,
        error: first ? renderFailure(first) : { message: 'templates do not compile' },
      };
    }
    let snapshot: IndexSnapshot;
    try {
      snapshot = await indexFixtures(this.config.spec, req.fixtures);
    } catch (e) {
      return {
        ok: false,
        error: { message: `fixtures cannot be indexed: ${(e as Error).message}` },
      };
    }
    const result = render(compiled, snapshot, {
      maxQuarantine: 0,
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
