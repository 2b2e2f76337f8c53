import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ContextProvider } from '#render';
import type { ControllerExtensions, ExtensionModule } from './extension.js';
import { StartupConfigError } from './kube-config.js';

/** A path (`./x.js`, `/abs/x.js`, `file:` URL) or an installed package name. */
function looksLikePath(spec: string): boolean {
  return spec.startsWith('.') || isAbsolute(spec) || spec.startsWith('file:');
}

/** The URL to import for `spec`: paths from `cwd`, packages as installed where haptic runs. */
export function moduleUrl(spec: string, cwd: string): string {
  if (spec.startsWith('file:')) return spec;
  if (looksLikePath(spec)) {
    const file = resolve(cwd, spec);
    if (!existsSync(file))
      throw new StartupConfigError(`--module ${spec}: ${file} does not exist`, {
        details: { module: spec },
      });
    return pathToFileURL(file).href;
  }
  try {
    // a package installed next to the working directory (a team's project), else haptic's own
    return pathToFileURL(createRequire(join(cwd, 'package.json')).resolve(spec)).href;
  } catch {
    return spec;
  }
}

function isNestModule(value: unknown): value is ExtensionModule {
  if (typeof value === 'function') return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { module?: unknown }).module === 'function'
  );
}

function isProviderList(value: unknown): value is readonly ContextProvider[] {
  return (
    Array.isArray(value) &&
    value.every(
      (p: unknown) =>
        typeof p === 'object' &&
        p !== null &&
        typeof (p as ContextProvider).name === 'string' &&
        typeof (p as ContextProvider).provide === 'function',
    )
  );
}

/**
 * Imports one `--module`: an ES module whose `default` (or `module`) export is a Nest module
 * (a class or a dynamic module) and whose optional `contextProviders` export lists plain
 * template context providers. Throws StartupConfigError (exit 2) naming the module and export.
 */
export async function loadExtension(spec: string, cwd: string): Promise<ControllerExtensions> {
  const url = moduleUrl(spec, cwd);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(url)) as Record<string, unknown>;
  } catch (e) {
    throw new StartupConfigError(`--module ${spec}: cannot import: ${(e as Error).message}`, {
      cause: e,
      details: { module: spec },
    });
  }
  const nest = loaded['default'] ?? loaded['module'];
  if (!isNestModule(nest))
    throw new StartupConfigError(
      `--module ${spec}: exports no Nest module (export default, or export const module, ` +
        'a @Module class or a dynamic module)',
      { details: { module: spec } },
    );
  const providers = loaded['contextProviders'];
  if (providers !== undefined && !isProviderList(providers))
    throw new StartupConfigError(
      `--module ${spec}: export contextProviders must be an array of { name, provide() }`,
      { details: { module: spec } },
    );
  return { modules: [nest], ...(providers ? { contextProviders: providers } : {}) };
}

/** Loads every `--module` in order and merges what they contribute. */
export async function loadExtensions(
  specs: readonly string[],
  cwd: string = process.cwd(),
): Promise<ControllerExtensions> {
  const modules: ExtensionModule[] = [];
  const contextProviders: ContextProvider[] = [];
  for (const spec of specs) {
    const e = await loadExtension(spec, cwd);
    modules.push(...(e.modules ?? []));
    contextProviders.push(...(e.contextProviders ?? []));
  }
  return { modules, contextProviders };
}
