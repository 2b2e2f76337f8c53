import { X509Certificate } from 'node:crypto';
import { ContentMemo } from '#core';
import type { RenderedOutputs } from '#events';
import {
  diffConfigText,
  mapEdits,
  mapMatchKinds,
  parseCrtList,
  parseMapFile,
  type MapEdits,
  type MapEntry,
  type RuntimeChange,
  type StructuralChange,
} from '#haproxy-config';

/** One thing a deployment does to a pod, as reported by `haptic sync` and the per-pod state. */
export interface SyncOperation {
  readonly kind: string;
  readonly target: string;
  /** True when applied through the runtime API (no reload). */
  readonly runtime: boolean;
}

/** What the pod runs now: configuration text and stored files by kind. */
export interface PodFiles {
  readonly config: string;
  readonly maps: Readonly<Record<string, string>>;
  /** Stored certificates by name: SHA-256 fingerprint of the first certificate (the API serves no content). */
  readonly certs: Readonly<Record<string, string>>;
  /** General storage (files and crt-lists). */
  readonly general: Readonly<Record<string, string>>;
}

/** What the engine may do at runtime on this pod. */
export interface PodCapabilities {
  /** Runtime certificate and crt-list endpoints (Dataplane API 3.2+). */
  readonly runtimeCerts: boolean;
  /** Largest certificate payload the runtime CLI takes (2.6: one 16 KB buffer). */
  readonly maxCertPayload: number;
  /**
   * The pod is a haptic agent, which takes the render's own `haproxy -c` for a configuration
   * stored without a reload (`X-Haptic-Checked`) instead of running its own.
   */
  readonly takesChecked?: boolean;
}

/** A classified deployment: runtime steps, the reasons to reload, and storage to write. */
export interface SyncPlan {
  readonly servers: readonly RuntimeChange[];
  /**
   * Maps whose entries change: the whole new list (an atomic replace), and the entry changes
   * that give the same lookups when there are such (see mapEdits): applied one entry each.
   */
  readonly maps: readonly {
    name: string;
    entries: { key: string; value: string }[];
    edits?: MapEdits;
  }[];
  readonly certs: readonly { name: string; pem: string; isNew: boolean }[];
  readonly crtListAdds: readonly { list: string; line: string }[];
  readonly crtListDels: readonly { list: string; file: string; line: number }[];
  readonly certDeletes: readonly string[];
  /** Reasons a reload is needed (empty: runtime only). */
  readonly reload: readonly StructuralChange[];
  readonly writes: readonly {
    kind: 'maps' | 'ssl_certificates' | 'general';
    name: string;
    content: string;
    exists: boolean;
  }[];
  readonly deletes: readonly { kind: 'maps' | 'ssl_certificates' | 'general'; name: string }[];
  /** The configuration text differs (comments, or runtime changes to persist). */
  readonly configChanged: boolean;
}

/** The Dataplane API's meta lines (`# _version=…`), each with its line end. */
const META_LINE = /^# _(?:version|md5hash|cluster_version)=[^\n]*(?:\n|$)/gm;

/** A configuration text without its meta lines, trimmed (one pass; no copy of every line). */
const strip = (t: string) => t.replace(META_LINE, '').trim();

/** The same configuration but for meta lines and the blanks around it. */
const sameConfig = (a: string, b: string) => a === b || strip(a) === strip(b);

/** Classifies every difference between what a pod runs and the desired outputs. */
export function planSync(pod: PodFiles, want: RenderedOutputs, caps: PodCapabilities): SyncPlan {
  const reload: StructuralChange[] = [];
  const diff = diffConfigText(pod.config, want.haproxyConfig);
  reload.push(...diff.structural);
  const writes: SyncPlan['writes'][number][] = [];
  const deletes: SyncPlan['deletes'][number][] = [];
  const maps: SyncPlan['maps'][number][] = [];
  const certs: SyncPlan['certs'][number][] = [];
  const crtListAdds: SyncPlan['crtListAdds'][number][] = [];
  const crtListDels: SyncPlan['crtListDels'][number][] = [];
  const certDeletes: string[] = [];

  for (const [name, content] of sorted(want.maps)) {
    const had = pod.maps[name];
    if (had === content) continue;
    const entries = parseMapFile(content);
    const old = had === undefined ? undefined : parseMapFile(had);
    if (old && sameEntries(old, entries)) continue;
    writes.push({ kind: 'maps', name, content, exists: had !== undefined });
    // a map file seen for the first time is read by HAProxy on the reload its reference causes
    if (!old) continue;
    const edits = mapEdits(old, entries, mapMatchKinds(want.haproxyConfig, name));
    maps.push({
      name,
      entries: entries.map((e) => ({ key: e.key, value: e.value })),
      ...(edits ? { edits } : {}),
    });
  }
  for (const name of Object.keys(pod.maps))
    if (!(name in want.maps)) deletes.push({ kind: 'maps', name });

  for (const [name, pem] of sorted(want.sslCertificates)) {
    const had = pod.certs[name];
    if (had !== undefined && had.toUpperCase() === certFingerprint(pem)) continue;
    writes.push({ kind: 'ssl_certificates', name, content: pem, exists: had !== undefined });
    if (!caps.runtimeCerts)
      reload.push({
        section: `ssl ${name}`,
        reason: 'certificate changed; no runtime certificate endpoints on this API',
      });
    else if (Buffer.byteLength(pem) > caps.maxCertPayload)
      reload.push({
        section: `ssl ${name}`,
        reason: `certificate payload over ${caps.maxCertPayload} bytes`,
      });
    else certs.push({ name, pem, isNew: had === undefined });
  }
  for (const name of Object.keys(pod.certs))
    if (!(name in want.sslCertificates)) {
      deletes.push({ kind: 'ssl_certificates', name });
      if (caps.runtimeCerts) certDeletes.push(name);
    }

  const general = { ...want.files, ...want.crtLists };
  for (const [name, content] of sorted(general)) {
    const had = pod.general[name];
    if (had !== undefined && sameMap(had, content)) continue;
    writes.push({ kind: 'general', name, content, exists: had !== undefined });
    if (had === undefined) continue;
    if (name in want.crtLists && caps.runtimeCerts) {
      diffCrtList(name, had, content, crtListAdds, crtListDels);
    } else {
      reload.push({ section: `file ${name}`, reason: 'file changed: HAProxy reads it at start' });
    }
  }
  for (const name of Object.keys(pod.general))
    if (!(name in general)) deletes.push({ kind: 'general', name });

  return {
    servers: diff.runtime,
    maps,
    certs,
    crtListAdds,
    crtListDels,
    certDeletes,
    reload,
    writes,
    deletes,
    configChanged: !sameConfig(pod.config, want.haproxyConfig),
  };
}

/** crt-list lines removed (by file and line) and added (as text), for the runtime API. */
function diffCrtList(
  list: string,
  before: string,
  after: string,
  adds: { list: string; line: string }[],
  dels: { list: string; file: string; line: number }[],
): void {
  const norm = (t: string) =>
    t
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
  const want = new Set(norm(after));
  const have = new Set(norm(before));
  const entries = parseCrtList(before);
  const lines = before.split('\n');
  for (const e of entries) {
    const text = (lines[e.line_number - 1] ?? '').trim();
    if (!want.has(text)) dels.push({ list, file: e.file, line: e.line_number });
  }
  for (const l of norm(after)) if (!have.has(l)) adds.push({ list, line: l });
}

/** SHA-256 fingerprint (hex, upper case, no colons) of the first certificate of a PEM. */
export function certFingerprint(pem: string): string {
  const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0];
  return first ? fingerprints.get(first, fingerprintOf) : '';
}

/** Each certificate is parsed once, not once per pod per deployment. */
const fingerprints = new ContentMemo<string>();

function fingerprintOf(first: string): string {
  try {
    return new X509Certificate(first).fingerprint256.replace(/:/g, '').toUpperCase();
  } catch {
    return '';
  }
}

function sorted(r: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(r).sort(([a], [b]) => a.localeCompare(b));
}

/** The operations a plan performs, each marked runtime or not (a reload applies everything). */
export function planOperations(plan: SyncPlan): SyncOperation[] {
  const runtime = plan.reload.length === 0;
  const ops: SyncOperation[] = [];
  for (const c of plan.servers) {
    const target = `${c.backend}/${c.kind === 'server.add' ? c.spec.name : c.server}`;
    ops.push({ kind: c.kind, target, runtime });
  }
  for (const m of plan.maps)
    ops.push({ kind: m.edits ? 'map.edit' : 'map.replace', target: m.name, runtime });
  for (const c of plan.certs)
    ops.push({ kind: c.isNew ? 'cert.add' : 'cert.update', target: c.name, runtime });
  for (const a of plan.crtListAdds)
    ops.push({ kind: 'crt-list.add', target: `${a.list}: ${a.line}`, runtime });
  for (const d of plan.crtListDels)
    ops.push({ kind: 'crt-list.del', target: `${d.list}: ${d.file}`, runtime });
  for (const n of plan.certDeletes) ops.push({ kind: 'cert.delete', target: n, runtime });
  for (const r of plan.reload)
    ops.push({ kind: 'structural', target: `${r.section}: ${r.reason}`, runtime: false });
  for (const w of plan.writes)
    ops.push({
      kind: `storage.${w.exists ? 'replace' : 'create'}`,
      target: `${w.kind}/${w.name}`,
      runtime: false,
    });
  for (const d of plan.deletes)
    ops.push({ kind: 'storage.delete', target: `${d.kind}/${d.name}`, runtime: false });
  if (plan.configChanged && plan.reload.length === 0 && ops.length === 0)
    ops.push({ kind: 'config.text', target: 'haproxy.cfg', runtime: true });
  return ops;
}

/**
 * Two map files HAProxy reads alike: the same entries in the same order (blank lines and comments
 * aside — a pod may hold the text as its runtime wrote it back, without them).
 */
function sameMap(a: string, b: string): boolean {
  return a === b || sameEntries(parseMapFile(a), parseMapFile(b));
}

function sameEntries(x: readonly MapEntry[], y: readonly MapEntry[]): boolean {
  return x.length === y.length && x.every((e, i) => e.key === y[i]!.key && e.value === y[i]!.value);
}
