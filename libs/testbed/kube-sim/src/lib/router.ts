import type { Registry } from './registry.js';
import type { ResourceType } from './resource-type.js';
import { ApiError } from './status.js';

/** What a URL path addresses. */
export type Route =
  | { kind: 'version' | 'api' | 'apis' | 'openapi-v3' | 'openapi-v2' | 'health' }
  | { kind: 'group'; group: string }
  | { kind: 'resources'; group: string; version: string }
  | { kind: 'openapi-gv'; group: string; version: string }
  | { kind: 'control'; action: string }
  | {
      kind: 'resource';
      type: ResourceType;
      namespace: string | undefined;
      name: string | undefined;
      subresource: string | undefined;
      watchPath: boolean;
    };

function resourceRoute(
  registry: Registry,
  group: string,
  version: string,
  rest: string[],
): Route | undefined {
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  // namespaces/<ns>/<plural>/... addresses namespaced content; namespaces/<name>[/status] the Namespace.
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const inner = registry.find(group, version, rest[2]!);
    if (inner?.namespaced) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  const [plural, name, subresource, ...extra] = rest;
  if (!plural) return undefined;
  const type = registry.find(group, version, plural);
  if (!type || extra.length) return undefined;
  if (namespace === undefined && type.namespaced && name !== undefined) return undefined;
  return { kind: 'resource', type, namespace, name, subresource, watchPath };
}

/** Maps a URL path to what it addresses, or undefined for a 404. */
export function route(registry: Registry, path: string): Route | undefined {
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  const [a, b, c, ...rest] = parts;
  if (a === 'version' && !b) return { kind: 'version' };
  if (['healthz', 'readyz', 'livez'].includes(a ?? '')) return { kind: 'health' };
  if (a === 'kube-sim' && b) return { kind: 'control', action: parts.slice(1).join('/') };
  if (a === 'openapi') {
    if (b === 'v2') return { kind: 'openapi-v2' };
    if (b === 'v3' && !c) return { kind: 'openapi-v3' };
    if (b === 'v3' && c === 'api' && rest[0])
      return { kind: 'openapi-gv', group: '', version: rest[0] };
    if (b === 'v3' && c === 'apis' && rest[1])
      return { kind: 'openapi-gv', group: rest[0]!, version: rest[1] };
    return undefined;
  }
  if (a === 'api') {
    if (!b) return { kind: 'api' };
    if (!c) return { kind: 'resources', group: '', version: b };
    return resourceRoute(registry, '', b, [c, ...rest]);
  }
  if (a === 'apis') {
    if (!b) return { kind: 'apis' };
    if (!c) return { kind: 'group', group: b };
    if (rest.length === 0) return { kind: 'resources', group: b, version: c };
    return resourceRoute(registry, b, c, rest);
  }
  return undefined;
}

/** The 404 a real API server gives for an unknown path. */
export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}
