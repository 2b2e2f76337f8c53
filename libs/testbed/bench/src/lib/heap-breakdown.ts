import { readFile } from 'node:fs/promises';

/** The parts of a V8 `.heapsnapshot` file the breakdown reads. */
interface HeapSnapshotFile {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: readonly string[];
      readonly node_types: readonly [readonly string[], ...unknown[]];
      readonly edge_fields: readonly string[];
      readonly edge_types: readonly [readonly string[], ...unknown[]];
    };
  };
  readonly nodes: readonly number[];
  readonly edges: readonly number[];
  readonly strings: readonly string[];
}

/** One library's share of a heap snapshot. */
export interface HeapShare {
  readonly owner: string;
  readonly bytes: number;
  /** Of which strings. */
  readonly stringBytes: number;
  /** The instances (by class) the share was counted from. */
  readonly instances: Readonly<Record<string, number>>;
}

/** Which objects stand for which library; the first owner to reach an object counts it. */
export const HEAP_OWNERS: readonly (readonly [string, RegExp])[] = [
  ['index', /^(ResourceIndex|ResourceStore|ResourceView|Snapshot|OnDemandCache|IndexListener)$/],
  ['watch', /^(WatchManager|ResourceWatch|Reflector|ObjectWatch|ClientNodeKubeApi|WatchListener)$/],
  ['bus (fact history, state values, queues)', /^EventBus$/],
  ['render: listener (previous deployment)', /^RenderListener$/],
  ['render: fragment cache', /^FragmentCache$/],
  ['render: compiled templates', /^(RenderService|Liquid)$/],
  ['validation', /^(ValidationListener|ValidationService|HaproxyChecker)$/],
  ['dataplane', /^(DataplaneListener|Fleet)$/],
  ['status', /^Status[A-Za-z]*$/],
  ['webhook', /^Webhook[A-Za-z]*$/],
  ['/debug and health', /^(DebugController|DeploymentLog|QuarantineLog|ReadinessService)$/],
  ['metrics', /^(Registry|Histogram|Gauge|Counter|Summary)$/],
];

const NOT_FOLLOWED = new Set(['__proto__', 'constructor', 'map', 'prototype']);

/**
 * Splits a heap snapshot between haptic's libraries: every node's own size goes to the first
 * owner (in HEAP_OWNERS order) whose objects reach it through strong references, not through
 * prototypes, hidden classes or closure contexts; the rest (code, module sources, Nest, client
 * libraries) is `everything else`. Shared objects count once, for the first owner.
 */
export function heapBreakdown(file: HeapSnapshotFile): HeapShare[] {
  const { meta } = file.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [nodeTypes] = meta.node_types;
  const [edgeTypes] = meta.edge_types;
  const { nodes, edges, strings } = file;
  const count = nodes.length / nf;
  const at = (field: string): number => meta.node_fields.indexOf(field);
  const [iType, iName, iSize, iEdges] = [at('type'), at('name'), at('self_size'), at('edge_count')];
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) =>
    meta.edge_fields.indexOf(f),
  ) as [number, number, number];
  const first = new Uint32Array(count + 1);
  for (let v = 0, e = 0; v < count; v++) {
    first[v] = e;
    e += (nodes[v * nf + iEdges] ?? 0) * ef;
    first[v + 1] = e;
  }
  const type = (v: number): string => nodeTypes[nodes[v * nf + iType] ?? 0] ?? '';
  const name = (v: number): string => strings[nodes[v * nf + iName] ?? 0] ?? '';
  const ownerOf = (v: number): number =>
    type(v) === 'object' ? HEAP_OWNERS.findIndex(([, re]) => re.test(name(v))) : -1;
  const followed = (e: number): boolean => {
    const t = edgeTypes[edges[e + eType] ?? 0];
    if (t === 'weak' || t === 'shortcut' || t === 'context') return false;
    return (
      t === 'element' || t === 'hidden' || !NOT_FOLLOWED.has(strings[edges[e + eName] ?? 0] ?? '')
    );
  };
  const entered = (w: number): boolean => {
    const t = type(w);
    return t !== 'code' && t !== 'closure' && t !== 'synthetic' && name(w) !== 'system / Context';
  };
  const owner = new Int16Array(count).fill(-1);
  const instances = HEAP_OWNERS.map(() => new Map<string, number>());
  HEAP_OWNERS.forEach((_, g) => {
    const queue: number[] = [];
    for (let v = 0; v < count; v++) {
      if (ownerOf(v) !== g) continue;
      instances[g]!.set(name(v), (instances[g]!.get(name(v)) ?? 0) + 1);
      if (owner[v] !== -1) continue;
      owner[v] = g;
      queue.push(v);
    }
    for (let q = 0; q < queue.length; q++) {
      const v = queue[q]!;
      for (let e = first[v]!; e < first[v + 1]!; e += ef) {
        const w = (edges[e + eTo] ?? 0) / nf;
        if (!followed(e) || owner[w] !== -1 || !entered(w)) continue;
        const other = ownerOf(w);
        if (other !== -1 && other !== g) continue;
        owner[w] = g;
        queue.push(w);
      }
    }
  });
  const bytes = new Float64Array(HEAP_OWNERS.length + 1);
  const stringBytes = new Float64Array(HEAP_OWNERS.length + 1);
  for (let v = 0; v < count; v++) {
    const g = owner[v] === -1 ? HEAP_OWNERS.length : owner[v]!;
    const size = nodes[v * nf + iSize] ?? 0;
    bytes[g]! += size;
    if (type(v).includes('string')) stringBytes[g]! += size;
  }
  return [
    ...HEAP_OWNERS.map(([o]) => o),
    'everything else (code, module sources, Nest, libraries)',
  ].map((o, g) => ({
    owner: o,
    bytes: bytes[g]!,
    stringBytes: stringBytes[g]!,
    instances: Object.fromEntries(instances[g] ?? []),
  }));
}

/** Reads a `.heapsnapshot` file and splits it (see heapBreakdown). */
export async function heapBreakdownOf(path: string): Promise<HeapShare[]> {
  return heapBreakdown(JSON.parse(await readFile(path, 'utf8')) as HeapSnapshotFile);
}
