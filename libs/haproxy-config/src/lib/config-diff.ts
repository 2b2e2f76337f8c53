import { splitAddress } from './config-sections.js';
import type { ConfigSectionModel, Directive, HaproxyConfigModel } from './config-model.js';

/** A `server` line split into what the runtime API can change and everything else. */
export interface ServerSpec {
  readonly name: string;
  readonly address: string;
  readonly port: number | undefined;
  readonly weight: number | undefined;
  /** `disabled` on the line: the server starts in maintenance. */
  readonly maint: boolean;
  /** The other keywords, in order (a difference there is structural). */
  readonly params: readonly string[];
}

export type RuntimeChange =
  | {
      readonly kind: 'server.set';
      readonly backend: string;
      readonly server: string;
      readonly address?: string;
      readonly port?: number;
      readonly weight?: number;
      readonly maint?: boolean;
    }
  | { readonly kind: 'server.add'; readonly backend: string; readonly spec: ServerSpec }
  | { readonly kind: 'server.del'; readonly backend: string; readonly server: string };

/** A difference only a reload applies, with the section it is in and why. */
export interface StructuralChange {
  readonly section: string;
  readonly reason: string;
}

/** Every difference between two configurations, each classified. */
export interface ConfigDiff {
  readonly runtime: readonly RuntimeChange[];
  readonly structural: readonly StructuralChange[];
}

/** Balance algorithms that allow dynamic servers (`add server`): the others need a reload. */
const DYNAMIC_BALANCE = new Set(['roundrobin', 'leastconn', 'first', 'random']);
/** Keywords a dynamically added server may carry here (the common subset of 2.6 and 3.x). */
const DYNAMIC_PARAMS = new Set(['check']);
const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)$/;

/** Parses the words of a `server` directive. */
export function serverSpec(d: Directive): ServerSpec {
  const { address, port } = splitAddress(d[2] ?? '');
  let weight: number | undefined;
  let maint = false;
  const params: string[] = [];
  for (let i = 3; i < d.length; i++) {
    const w = d[i] ?? '';
    if (w === 'weight' && i + 1 < d.length) weight = Number(d[++i]);
    else if (w === 'disabled') maint = true;
    else if (w !== 'enabled') params.push(w);
  }
  return { name: d[1] ?? '', address, port, weight, maint, params };
}

const key = (s: ConfigSectionModel) => `${s.type} ${s.name}`.trim();
const same = (a: readonly Directive[], b: readonly Directive[]) =>
  a.length === b.length && a.every((d, i) => d.join('\u0000') === (b[i] ?? []).join('\u0000'));
const isServer = (d: Directive) => d[0] === 'server';

/**
 * Section keys, a repeated one numbered by occurrence (`defaults`, `defaults #2`): unnamed
 * `defaults` sections may repeat, and a repeated name must be compared with its own occurrence.
 */
function occurrenceKeys(sections: readonly ConfigSectionModel[]): string[] {
  const seen = new Map<string, number>();
  return sections.map((s) => {
    const k = key(s);
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return n === 1 ? k : `${k} #${n}`;
  });
}

/** Compares two configurations section by section; servers inside backends in detail. */
export function diffConfig(from: HaproxyConfigModel, to: HaproxyConfigModel): ConfigDiff {
  const runtime: RuntimeChange[] = [];
  const structural: StructuralChange[] = [];
  const fromKeys = occurrenceKeys(from.sections);
  const before = new Map(from.sections.map((s, i) => [fromKeys[i]!, s]));
  const afterKeys = occurrenceKeys(to.sections);
  if (fromKeys.join('\n') !== afterKeys.join('\n')) {
    const after = new Set(afterKeys);
    const added = afterKeys.filter((k) => !before.has(k));
    const removed = [...before.keys()].filter((k) => !after.has(k));
    for (const k of added) structural.push({ section: k, reason: 'section added' });
    for (const k of removed) structural.push({ section: k, reason: 'section removed' });
    if (added.length === 0 && removed.length === 0)
      structural.push({ section: '', reason: 'sections reordered' });
  }
  for (const [i, s] of to.sections.entries()) {
    const old = before.get(afterKeys[i]!);
    if (!old) continue;
    if (
      !same(
        old.directives.filter((d) => !isServer(d)),
        s.directives.filter((d) => !isServer(d)),
      )
    )
      structural.push({ section: key(s), reason: 'directives changed' });
    diffServers(from, to, old, s, runtime, structural);
  }
  return { runtime, structural };
}

function diffServers(
  fromModel: HaproxyConfigModel,
  toModel: HaproxyConfigModel,
  old: ConfigSectionModel,
  now: ConfigSectionModel,
  runtime: RuntimeChange[],
  structural: StructuralChange[],
): void {
  const a = new Map(old.directives.filter(isServer).map((d) => [d[1] ?? '', serverSpec(d)]));
  const b = new Map(now.directives.filter(isServer).map((d) => [d[1] ?? '', serverSpec(d)]));
  const section = key(now);
  const backend = now.name;
  for (const [name, spec] of b) {
    const was = a.get(name);
    if (!was) {
      const why = dynamicAddRefusal(toModel, now, spec);
      if (why) structural.push({ section, reason: `server ${name} added: ${why}` });
      else runtime.push({ kind: 'server.add', backend, spec });
      continue;
    }
    if (was.params.join(' ') !== spec.params.join(' ')) {
      structural.push({ section, reason: `server ${name}: keywords changed` });
      continue;
    }
    if (spec.address !== was.address && !IP.test(spec.address)) {
      structural.push({ section, reason: `server ${name}: address ${spec.address} is not an IP` });
      continue;
    }
    if (spec.weight !== was.weight && balanceRefusal(toModel, now)) {
      structural.push({ section, reason: `server ${name}: weight on a static balance algorithm` });
      continue;
    }
    const change = {
      ...(spec.address !== was.address || spec.port !== was.port
        ? { address: spec.address, ...(spec.port !== undefined ? { port: spec.port } : {}) }
        : {}),
      ...(spec.weight !== was.weight ? { weight: spec.weight ?? 1 } : {}),
      ...(spec.maint !== was.maint ? { maint: spec.maint } : {}),
    };
    if (Object.keys(change).length > 0)
      runtime.push({ kind: 'server.set', backend, server: name, ...change });
  }
  for (const name of a.keys()) {
    if (b.has(name)) continue;
    const balance = balanceRefusal(toModel, now);
    if (balance) structural.push({ section, reason: `server ${name} removed: ${balance}` });
    else if (referencedServer(fromModel, backend, name))
      structural.push({ section, reason: `server ${name} removed: referenced elsewhere` });
    else runtime.push({ kind: 'server.del', backend, server: name });
  }
}

/** Why a new server cannot be added at runtime (undefined when it can). */
function dynamicAddRefusal(
  model: HaproxyConfigModel,
  section: ConfigSectionModel,
  spec: ServerSpec,
): string | undefined {
  const refusal = balanceRefusal(model, section);
  if (refusal) return refusal;
  const defaults = model.sections.filter((s) => s.type === 'defaults');
  const scope = [...defaults.flatMap((s) => s.directives), ...section.directives];
  if (scope.some((d) => d[0] === 'default-server'))
    return 'default-server does not apply to dynamic servers';
  if (!IP.test(spec.address)) return `address ${spec.address} is not an IP`;
  if (spec.port === undefined) return 'no port';
  const extra = spec.params.filter((p) => !DYNAMIC_PARAMS.has(p));
  if (extra.length > 0) return `keywords ${extra.join(' ')} are not applied to dynamic servers`;
  return undefined;
}

/** Why a backend takes no dynamic server changes (add/del): not a backend, or a static balance. */
function balanceRefusal(
  model: HaproxyConfigModel,
  section: ConfigSectionModel,
): string | undefined {
  if (section.type !== 'backend') return `${section.type} sections take no dynamic servers here`;
  const defaults = model.sections.filter((s) => s.type === 'defaults');
  const scope = [...defaults.flatMap((s) => s.directives), ...section.directives];
  const balance = scope.filter((d) => d[0] === 'balance').pop()?.[1] ?? 'roundrobin';
  return DYNAMIC_BALANCE.has(balance) ? undefined : `balance ${balance} allows no dynamic servers`;
}

/** True when another directive names the server (`use-server`, `track`): it cannot be deleted. */
function referencedServer(model: HaproxyConfigModel, backend: string, name: string): boolean {
  return model.sections.some((s) =>
    s.directives.some(
      (d) =>
        (s.name === backend && d[0] === 'use-server' && d[1] === name) ||
        d.some((w, i) => d[i - 1] === 'track' && (w === `${backend}/${name}` || w === name)),
    ),
  );
}

/** True when nothing differs. */
export function isEmptyDiff(d: ConfigDiff): boolean {
  return d.runtime.length === 0 && d.structural.length === 0;
}
