// A module resolution hook that keeps @kubernetes/client-node's generated API clients out of the
// controller. haptic uses client-node for its KubeConfig (cluster address, TLS, tokens,
// certificates, exec plug-ins) and makes its own requests (libs/core kube-rest.ts, the watch's
// list/watch), but client-node's KubeConfig module imports `./gen/index.js` for two names that
// only `makeApiClient` uses: evaluating that index loads every API group's client and all 2,500
// models (about 21 MiB of V8 heap and 30 MiB resident, see docs/operations/performance.md,
// "client-node"). This hook resolves that one import to client-node-gen.ts, which takes the same
// two names from the files that define them (the same module instances the index re-exports).
// bin/haptic.js registers it (module.registerHooks where Node has it, else module.register).
/** client-node's KubeConfig module, the only importer redirected. */
const CONFIG_MODULE = /\/node_modules\/@kubernetes\/client-node\/dist\/config\.js$/;

/** What config.js's `./gen/index.js` import is resolved to. */
export const SLIM_GEN_URL = new URL('./client-node-gen.js', import.meta.url).href;

interface Resolved {
  readonly url: string;
  readonly shortCircuit?: boolean;
}

/**
 * The resolve hook (both the synchronous and the off-thread hook API: it only calls `next` and
 * returns what it returns).
 */
export function resolve<C extends { readonly parentURL?: string | undefined }, T>(
  specifier: string,
  context: C,
  next: (specifier: string, context: C) => T,
): T | Resolved {
  if (specifier === './gen/index.js' && CONFIG_MODULE.test(context.parentURL ?? ''))
    return { url: SLIM_GEN_URL, shortCircuit: true };
  return next(specifier, context);
}
