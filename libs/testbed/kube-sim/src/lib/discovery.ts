import { compareKubeVersions, type Registry } from './registry.js';
import { verbsOf, type ResourceType } from './resource-type.js';

/** The version kube-sim reports on /version (the API level it imitates). */
export const serverVersion = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-kube-sim',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** GET /api */
export function apiVersions(serverAddress: string): unknown {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(name: string, versions: string[]): unknown {
  const vs = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

/** GET /apis */
export function apiGroupList(registry: Registry): unknown {
  const groups = registry
    .groups()
    .filter((g) => g.name !== '')
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((g) => groupDoc(g.name, g.versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** GET /apis/<group>, or undefined when the group is not served. */
export function apiGroup(registry: Registry, name: string): unknown {
  const g = registry.groups().find((x) => x.name === name);
  return g && { kind: 'APIGroup', apiVersion: 'v1', ...(groupDoc(g.name, g.versions) as object) };
}

function resourceEntry(t: ResourceType): unknown[] {
  const main = {
    name: t.plural,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: verbsOf(t),
    ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
    ...(t.categories.length ? { categories: t.categories } : {}),
  };
  const out: unknown[] = [main];
  if (t.statusSubresource)
    out.push({
      name: `${t.plural}/status`,
      singularName: '',
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: ['get', 'patch', 'update'],
    });
  if (t.scale)
    out.push({
      name: `${t.plural}/scale`,
      singularName: '',
      namespaced: t.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  return out;
}

/** GET /api/v1 or /apis/<group>/<version>, or undefined when not served. */
export function apiResourceList(registry: Registry, group: string, version: string): unknown {
  const types = registry.resources(group, version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: types.sort((a, b) => (a.plural < b.plural ? -1 : 1)).flatMap(resourceEntry),
  };
}

export { compareKubeVersions };
