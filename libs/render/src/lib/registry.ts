import { ingressProvider } from './ingress/provider.js';
import { ingressNginxProvider } from './ingress-nginx/provider.js';
import type { ContextProvider } from './types.js';

/** Context providers every config gets (lazy: a config that does not use one pays nothing). */
export const BUILTIN_CONTEXT_PROVIDERS: readonly ContextProvider[] = [
  ingressProvider,
  ingressNginxProvider,
];

/**
 * The one registry of context providers: the built-in ones, then the modules' own (a name may be
 * registered once). `compileTemplates`, `RenderService`, `haptic validate|render` and the benches
 * all render through it, so they render the same bytes.
 */
export function contextProviders(own: readonly ContextProvider[] = []): ContextProvider[] {
  const all = [...BUILTIN_CONTEXT_PROVIDERS];
  for (const p of own) {
    if (all.some((q) => q.name === p.name)) {
      throw new TypeError(`context provider ${p.name} is already registered`);
    }
    all.push(p);
  }
  return all;
}
