import { builtinTypes } from './builtins.js';
import { groupVersion, type ResourceType } from './resource-type.js';

/** Kubernetes' version priority: GA before beta before alpha, higher numbers first. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0, v] as const;
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [1, stage, Number(m[1]), Number(m[3] ?? 0)] as const;
  };
  const [pa, pb] = [parse(a), parse(b)];
  for (let i = 0; i < 4; i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x !== y)
      return typeof x === 'number' && typeof y === 'number'
        ? y - x
        : String(x) < String(y)
          ? -1
          : 1;
  }
  return 0;
}

/** Every served resource type, built-in and CRD-defined, looked up by path or by kind. */
export class Registry {
  private readonly types = new Map<string, ResourceType>();

  constructor() {
    for (const t of builtinTypes()) this.add(t);
  }

  add(t: ResourceType): void {
    this.types.set(`${t.group}/${t.version}/${t.plural}`, t);
  }

  /** Removes every type a CRD served. */
  removeCrd(crdName: string): void {
    for (const [k, t] of this.types) if (t.crdName === crdName) this.types.delete(k);
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.get(`${group}/${version}/${plural}`);
  }

  /** The type serving `kind` in `apiVersion` ("v1", "apps/v1"). */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    for (const t of this.types.values())
      if (groupVersion(t) === apiVersion && t.kind === kind) return t;
    return undefined;
  }

  /** Every type of one group/version. */
  resources(group: string, version: string): ResourceType[] {
    return [...this.types.values()].filter((t) => t.group === group && t.version === version);
  }

  /** Every type sharing a storage key (all served versions of one resource). */
  versionsOf(storageKey: string): ResourceType[] {
    return [...this.types.values()].filter((t) => t.storageKey === storageKey);
  }

  /** Groups with their versions, preferred (highest priority) version first. */
  groups(): { name: string; versions: string[] }[] {
    const m = new Map<string, Set<string>>();
    for (const t of this.types.values()) {
      if (!m.has(t.group)) m.set(t.group, new Set());
      m.get(t.group)!.add(t.version);
    }
    return [...m.entries()].map(([name, vs]) => ({
      name,
      versions: [...vs].sort(compareKubeVersions),
    }));
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }
}
