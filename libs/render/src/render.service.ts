import { Inject, Injectable, Optional } from '@nestjs/common';
import type { TemplateConfig } from '#core';
import { compileTemplates, type CompiledTemplates } from './lib/compile.js';
import { contextProviders } from './lib/registry.js';
import { render, renderYielding, type YieldOptions } from './lib/render.js';
import type {
  ContextProvider,
  RenderInputs,
  RenderProblem,
  RenderResult,
  RenderSnapshot,
  Result,
} from './lib/types.js';
import { NoTemplatesError } from './render.errors.js';

/** DI token: context providers (an array) other modules contribute to the template context. */
export const RENDER_CONTEXT_PROVIDERS = Symbol('RENDER_CONTEXT_PROVIDERS');

function versionOf(config: TemplateConfig): string {
  const { name, namespace, generation, resourceVersion } = config.source;
  return [namespace, name, generation, resourceVersion].filter((x) => x !== undefined).join('/');
}

/** Holds the compiled templates of the current config version and renders snapshots with them. */
@Injectable()
export class RenderService {
  private compiled: CompiledTemplates | undefined;
  private readonly providers: ContextProvider[] = [];

  constructor(
    @Optional() @Inject(RENDER_CONTEXT_PROVIDERS) providers?: readonly ContextProvider[],
  ) {
    for (const p of providers ?? []) this.addContextProvider(p);
  }

  /** The modules' own context providers (the built-in ones are added at compile). */
  get contextProviders(): readonly ContextProvider[] {
    return this.providers;
  }

  /** Adds a named template variable computed from each snapshot (before the next compile). */
  addContextProvider(provider: ContextProvider): void {
    if (contextProviders(this.providers).some((p) => p.name === provider.name)) {
      throw new TypeError(`context provider ${provider.name} is already registered`);
    }
    this.providers.push(provider);
  }

  /** Compiles a config version; on success it replaces the current one, on failure nothing changes. */
  compile(config: TemplateConfig): Result<CompiledTemplates, RenderProblem[]> {
    const result = compileTemplates(config.spec, {
      providers: this.providers,
      configVersion: versionOf(config),
    });
    if (result.ok) this.compiled = result.value;
    return result;
  }

  /** Compiles a config version without putting it in force (webhook dry runs), same providers. */
  compileDetached(config: TemplateConfig): Result<CompiledTemplates, RenderProblem[]> {
    return compileTemplates(config.spec, {
      providers: this.providers,
      configVersion: versionOf(config),
    });
  }

  /** True once a config version has compiled. */
  get ready(): boolean {
    return this.compiled !== undefined;
  }

  /** Renders a snapshot with the current templates (throws NoTemplatesError before the first compile). */
  render(snapshot: RenderSnapshot, inputs: Omit<RenderInputs, 'providers'> = {}): RenderResult {
    if (!this.compiled) throw new NoTemplatesError('no template config has compiled yet');
    return render(this.compiled, snapshot, inputs);
  }

  /**
   * `render`, giving way to the event loop during a long render (the leader's lease renewal
   * must not wait for it). Calls must not overlap (the render listener runs one at a time).
   */
  async renderYielding(
    snapshot: RenderSnapshot,
    inputs: Omit<RenderInputs, 'providers'> = {},
    options: YieldOptions = {},
  ): Promise<RenderResult> {
    if (!this.compiled) throw new NoTemplatesError('no template config has compiled yet');
    return renderYielding(this.compiled, snapshot, inputs, options);
  }
}
