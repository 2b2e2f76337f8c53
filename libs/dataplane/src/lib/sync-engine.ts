import type { DeployStage, RenderedOutputs } from '#events';
import {
  DataplaneConfigRejectedError,
  DataplaneRequestError,
  DataplaneVersionConflictError,
} from '../dataplane.errors.js';
import type { DataplaneClient, StorageKind } from './client.js';
import {
  certFingerprint,
  planOperations,
  planSync,
  type PodCapabilities,
  type PodFiles,
  type SyncOperation,
  type SyncPlan,
} from './sync-plan.js';
import { applyRuntime } from './sync-runtime.js';

export interface SyncOptions {
  readonly maxConflictRetries?: number;
  readonly reloadTimeoutMs?: number;
  /** Between two reload status reads (default 25 ms: a reload is a few hundred ms). */
  readonly pollMs?: number;
  /**
   * Called once before a deployment that reloads (never for runtime-only ones): the scheduler
   * waits out minDeploymentInterval and the stagger between pods here. The pod is read again
   * afterwards, as it may have changed while waiting (unless it resolves false: it did not wait).
   */
  readonly beforeReload?: (reasons: readonly string[]) => Promise<boolean | void>;
  /** Called once, before the engine first writes anything to the pod. */
  readonly onFirstWrite?: () => void;
  /**
   * The last deployment to this pod stopped after writing (the agent or the network went away):
   * HAProxy may run other than what is stored, which no plan can see. This one reloads, so that
   * HAProxy reads what is stored.
   */
  readonly recover?: boolean;
  /**
   * The render's whole `haproxy -c` when it runs beside the deployment (resolves true: passed).
   * Awaited before a reload the pod does not check itself (see podChecksReload): no reload runs
   * an unchecked configuration.
   */
  readonly wholeCheck?: Promise<boolean>;
  /**
   * Called once the runtime operations of a runtime-only deployment are applied, before the
   * stored copy a later reload reads is written (and checked by the pod): that copy is off the
   * critical path; a failure writing it is thrown afterwards (the pod is then marked partial).
   */
  readonly onApplied?: (result: SyncResult) => void | Promise<void>;
  /**
   * What the last deployment left on the pod (SyncResult.known): planned against without reading
   * the pod (a read costs as much as the whole configuration); a 409 re-reads it.
   */
  readonly known?: KnownPod;
  /**
   * The stored copy of the previous runtime-only deployment to this pod, still being written:
   * resolves to the configuration version it left (rejects: it failed). This deployment's
   * runtime operations do not wait for it; its own storage writes and any reload do (in order,
   * and against the version it left).
   */
  readonly priorStorage?: Promise<number> | undefined;
  /**
   * This deployment writes a stored copy behind its runtime operations; resolves when a newer
   * deployment that pushes the whole configuration (and reloads it) waits for that copy. The
   * copy's configuration push is then left out (its storage writes are not): the newer push
   * replaces that text at once, and it need not wait for this render's own check.
   */
  readonly superseded?: Promise<void>;
  /** Called once the pod's reload succeeded (HAProxy runs the new configuration). */
  readonly onReloaded?: () => void;
  /** Called once by a deployment that will push the whole configuration and reload it, before it waits for priorStorage. */
  readonly supersedePrior?: (() => void) | undefined;
}

/** What a pod holds and allows, as a deployment left it. */
export interface KnownPod {
  readonly files: PodFiles & { readonly version: number };
  readonly caps: PodCapabilities;
}

/** The result of one deployment to one pod (`haptic sync -o json` prints it). */
export interface SyncResult {
  readonly reloaded: boolean;
  readonly reloadId: string | null;
  readonly operations: readonly SyncOperation[];
  /** Why it reloaded (empty when it did not). */
  readonly reloadReasons: readonly string[];
  readonly version: number;
  /** Milliseconds spent per stage of this deployment (stages that did not run are absent). */
  readonly stages?: Readonly<Partial<Record<DeployStage, number>>>;
  /** What the pod holds after it (for the next deployment's SyncOptions.known). */
  readonly known?: KnownPod;
}

/** Adds up the time spent per deployment stage. */
class StageClock {
  readonly stages: Partial<Record<DeployStage, number>> = {};

  async time<T>(stage: DeployStage, work: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      this.stages[stage] = (this.stages[stage] ?? 0) + performance.now() - t0;
    }
  }
}

const KINDS: readonly StorageKind[] = ['maps', 'ssl_certificates', 'general'];

/** Reads what a pod runs: its configuration and every stored file with content. */
export async function readPod(client: DataplaneClient): Promise<PodFiles & { version: number }> {
  const raw = await client.getRaw();
  const files: Record<StorageKind, Record<string, string>> = {
    maps: {},
    ssl_certificates: {},
    general: {},
  };
  for (const f of await client.listStorage('ssl_certificates')) {
    const fp = (f as { sha256_finger_print?: string }).sha256_finger_print;
    files.ssl_certificates[f.storage_name] = fp ?? '';
  }
  for (const kind of KINDS.filter((k) => k !== 'ssl_certificates')) {
    for (const f of await client.listStorage(kind)) {
      const content = await client.readStorage(kind, f.storage_name);
      if (content !== undefined) files[kind][f.storage_name] = content;
    }
  }
  return {
    config: raw.text,
    version: raw.version,
    maps: files.maps,
    certs: files.ssl_certificates,
    general: files.general,
  };
}

/** What the pod's API and HAProxy allow at runtime (`/v3/info`, `runtime/info`). */
export async function podCapabilities(client: DataplaneClient): Promise<PodCapabilities> {
  const [apiMajor, apiMinor] = await client.apiVersion();
  const [hapMajor] = await client.haproxyVersion();
  return {
    runtimeCerts: apiMajor > 3 || (apiMajor === 3 && apiMinor >= 2),
    // 2.6 takes one 16 KB buffer per CLI message (command line + payload); 3.x allows more
    maxCertPayload: hapMajor >= 3 ? 1 << 20 : 15_000,
    takesChecked: await client.isHapticAgent(),
  };
}

/**
 * Runtime-first deployment to one pod: runtime changes through the runtime endpoints (each also
 * written to storage with skip_reload and the configuration pushed with skip_reload so a later
 * reload keeps them); anything structural in one versioned push whose reload is followed to its
 * end. A 409 version mismatch re-reads and retries; any other error is thrown.
 */
export async function syncPod(
  client: DataplaneClient,
  want: RenderedOutputs,
  opts: SyncOptions = {},
): Promise<SyncResult> {
  const clock = new StageClock();
  const caps = opts.known?.caps ?? (await clock.time('plan', () => podCapabilities(client)));
  let conflicts = 0;
  let gated = opts.beforeReload === undefined;
  let cached = opts.known?.files;
  // the previous deployment's stored copy counts while planning against `known` (a pod read
  // after it sees the version it left)
  let prior = opts.priorStorage;
  for (;;) {
    let pod = cached;
    if (!pod) {
      await storageReady(prior, clock, 0);
      prior = undefined;
      pod = await clock.time('plan', () => readPod(client));
    }
    cached = undefined;
    const plan = await clock.time('plan', () => Promise.resolve(planSync(pod, want, caps)));
    // nothing reloads before the previous deployment's stored copy is written (a push of the
    // whole configuration replaces that copy's text: it need not push it)
    if (plan.reload.length > 0 && plan.configChanged) opts.supersedePrior?.();
    if (plan.reload.length > 0) await storageReady(prior, clock, 0);
    if (plan.reload.length > 0 && !podChecksReload(plan)) await awaitWholeCheck(opts, clock);
    if (!gated && plan.reload.length > 0) {
      gated = true;
      const reasons = plan.reload.map((r) => `${r.section}: ${r.reason}`);
      const waited = await clock.time(
        'wait',
        () => opts.beforeReload?.(reasons) ?? Promise.resolve(),
      );
      if (waited === false) cached = pod;
      continue;
    }
    try {
      const onApplied = opts.onApplied;
      const o: SyncOptions = {
        ...opts,
        priorStorage: prior,
        // the next deployment plans against these files (its version comes from priorStorage)
        ...(onApplied
          ? {
              onApplied: (r: SyncResult) =>
                onApplied({ ...r, known: { files: heldAfter(want, r.version), caps } }),
            }
          : {}),
      };
      const result = await execute(client, plan, want, pod, caps, o, clock);
      return { ...result, known: { files: heldAfter(want, result.version), caps } };
    } catch (e) {
      if (
        !(e instanceof DataplaneVersionConflictError) ||
        conflicts >= (opts.maxConflictRetries ?? 3)
      )
        throw e;
      conflicts++;
    }
  }
}

/**
 * Waits for the previous deployment's stored copy (timed as `wait`); the configuration version
 * to write against: the one it left, else the pod's.
 */
async function storageReady(
  prior: Promise<number> | undefined,
  clock: StageClock,
  version: number,
): Promise<number> {
  return prior ? clock.time('wait', () => prior) : version;
}

async function execute(
  client: DataplaneClient,
  plan: SyncPlan,
  want: RenderedOutputs,
  pod: { readonly version: number },
  caps: PodCapabilities,
  opts: SyncOptions,
  clock: StageClock,
): Promise<SyncResult> {
  let version = pod.version;
  const ready = async () => (version = await storageReady(opts.priorStorage, clock, version));
  const operations = planOperations(plan);
  const reloadReasons = plan.reload.map((r) => `${r.section}: ${r.reason}`);
  const writeAll = () =>
    clock.time('storage', async () => {
      for (const w of plan.writes) await writeStored(client, w);
    });
  if (opts.recover && plan.reload.length === 0) {
    await awaitWholeCheck(opts, clock);
    await ready();
    opts.onFirstWrite?.();
    await writeAll();
    const reason = 'recover: the last deployment to this pod stopped part-way';
    const all = operations.map((o) => ({ ...o, runtime: false }));
    return reloadFromStorage(client, plan, caps, want, version, opts, clock, all, [reason], true);
  }
  if (operations.length === 0 && !plan.configChanged)
    return {
      reloaded: false,
      reloadId: null,
      operations: [],
      reloadReasons,
      version,
      stages: clock.stages,
    };
  opts.onFirstWrite?.();
  if (plan.reload.length > 0) {
    // storage first, never reloading: what the reload reads
    await ready();
    await writeAll();
    return reloadFromStorage(
      client,
      plan,
      caps,
      want,
      version,
      opts,
      clock,
      operations,
      reloadReasons,
    );
  }
  try {
    await clock.time('runtime', () => applyRuntime(client, plan));
  } catch (e) {
    // HAProxy refused a runtime step: reload from storage instead (a checked configuration only),
    // which makes HAProxy run the whole target state
    const reason = `runtime: ${e instanceof Error ? e.message : String(e)}`;
    await awaitWholeCheck(opts, clock);
    await ready();
    await writeAll();
    const reloaded = operations.map((o) => ({ ...o, runtime: false }));
    return reloadFromStorage(client, plan, caps, want, version, opts, clock, reloaded, [reason]);
  }
  const applied: SyncResult = {
    reloaded: false,
    reloadId: null,
    operations,
    reloadReasons,
    version,
    stages: { ...clock.stages },
  };
  await opts.onApplied?.(applied);
  // the stored copy a later reload reads, behind the runtime operations (and behind the previous
  // deployment's copy); the pod checks the configuration it is given (a failure is thrown: the
  // pod is marked and repaired next pass), or, a haptic agent, takes the render's own check of
  // that text (one `haproxy -c` per change, not two side by side)
  await ready();
  await writeAll();
  let v = version;
  if (plan.configChanged) {
    // a newer deployment that pushes the whole configuration may take over while this one waits
    // for the render's check: this text is then not pushed (the newer one replaces it at once)
    const superseded = opts.superseded?.then(() => 'superseded' as const);
    const checked = await Promise.race([
      storedCopyChecked(caps, opts, clock),
      ...(superseded ? [superseded] : []),
    ]);
    if (checked !== 'superseded')
      v = await clock.time(
        'storage',
        async () =>
          (await client.pushRaw(want.haproxyConfig, { version, skipReload: true, checked }))
            .version,
      );
  }
  await clock.time('storage', () => deleteStale(client, plan));
  return { ...applied, version: v, stages: clock.stages };
}

/** What a pod holds once `want` is deployed to it, in readPod's terms. */
function heldAfter(want: RenderedOutputs, version: number): KnownPod['files'] {
  const certs: Record<string, string> = {};
  for (const [name, pem] of Object.entries(want.sslCertificates))
    certs[name] = certFingerprint(pem);
  return {
    config: want.haproxyConfig,
    version,
    maps: want.maps,
    certs,
    general: { ...want.files, ...want.crtLists },
  };
}

/**
 * A reload that comes from pushing the configuration is checked by the pod: the Dataplane API
 * (and the agent) runs `haproxy -c` on the pushed text with the stored files before it reloads,
 * and refuses it (400) otherwise. Such a reload need not wait for the render's own whole check,
 * which runs beside it (a failure there puts the pods back on the last render that passed). A
 * reload from a storage write alone is not checked by the pod: it waits.
 */
function podChecksReload(plan: SyncPlan): boolean {
  return plan.configChanged;
}

/**
 * Whether a stored copy can go to the pod as checked: the pod takes the render's own check and
 * that check passed (awaited here, off the critical path; a failed or replaced one leaves the
 * pod to check the copy itself, as any Dataplane API does).
 */
async function storedCopyChecked(
  caps: PodCapabilities,
  opts: SyncOptions,
  clock: StageClock,
): Promise<boolean> {
  const pending = opts.wholeCheck;
  if (!caps.takesChecked || !pending) return false;
  return clock.time('storage', () => pending.catch(() => false));
}

/** Waits for the render's whole check, if it is under way; a failed one stops the reload. */
async function awaitWholeCheck(opts: SyncOptions, clock: StageClock): Promise<void> {
  const pending = opts.wholeCheck;
  if (!pending) return;
  if (!(await clock.time('wait', () => pending)))
    throw new DataplaneConfigRejectedError(
      'not reloading: the whole configuration of this render failed haproxy -c (or a newer render replaced it before its check)',
    );
}

/** Writes one stored file; a file the runtime API already created (409) is replaced instead. */
async function writeStored(client: DataplaneClient, w: SyncPlan['writes'][number]): Promise<void> {
  try {
    await client.writeStorage(w.kind, w.name, w.content, w.exists);
  } catch (e) {
    if (w.exists || !(e instanceof DataplaneRequestError && e.status === 409)) throw e;
    await client.writeStorage(w.kind, w.name, w.content, true);
  }
}

/** Pushes the configuration (or rewrites a stored file) so that the API reloads, and waits for it. */
async function reloadFromStorage(
  client: DataplaneClient,
  plan: SyncPlan,
  caps: PodCapabilities,
  want: RenderedOutputs,
  version: number,
  opts: SyncOptions,
  clock: StageClock,
  operations: readonly SyncOperation[],
  reloadReasons: readonly string[],
  pushAnyway = false,
): Promise<SyncResult> {
  const t0 = performance.now();
  let reloadId: string | undefined;
  let v = version;
  let done = false;
  if (plan.configChanged || (pushAnyway && plan.writes.length === 0)) {
    // a haptic agent reloads at once when asked and answers when the reload is over (no reload
    // status to poll); the Dataplane API's reload follows its reload_delay
    const pushed = await client.pushRaw(want.haproxyConfig, {
      version,
      ...(caps.takesChecked ? { forceReload: true } : {}),
    });
    v = pushed.version;
    reloadId = pushed.reloadId;
    done = caps.takesChecked === true && pushed.status === 201;
  } else {
    // the configuration is the same: the reload comes from the storage write itself (as the
    // Dataplane API does for a file written without skip_reload)
    const w =
      plan.writes.find((x) => plan.reload.some((r) => r.section.endsWith(` ${x.name}`))) ??
      plan.writes[0];
    if (!w)
      throw new DataplaneConfigRejectedError(`nothing to reload for: ${reloadReasons.join('; ')}`);
    reloadId = await client.writeStorageReloading(w.kind, w.name, w.content);
  }
  if (reloadId && !done) await waitForReload(client, reloadId, opts);
  opts.onReloaded?.();
  // the push (with its validation by the pod) and the reload it started, followed to its end
  clock.stages.reload = (clock.stages.reload ?? 0) + performance.now() - t0;
  await clock.time('storage', () => deleteStale(client, plan));
  const stages = clock.stages;
  return {
    reloaded: true,
    reloadId: reloadId ?? null,
    operations,
    reloadReasons,
    version: v,
    stages,
  };
}

async function waitForReload(
  client: DataplaneClient,
  id: string,
  opts: SyncOptions,
): Promise<void> {
  const deadline = Date.now() + (opts.reloadTimeoutMs ?? 60_000);
  for (;;) {
    const r = await client.reload(id);
    if (r.status === 'succeeded') return;
    if (r.status === 'failed')
      throw new DataplaneConfigRejectedError(`reload ${id} failed: ${r.response ?? 'no detail'}`);
    if (Date.now() > deadline)
      throw new DataplaneConfigRejectedError(`reload ${id} still in progress after the timeout`);
    await new Promise((r2) => setTimeout(r2, opts.pollMs ?? 25));
  }
}

/** Removes stored files the desired state no longer has (already gone is fine: a runtime delete may remove its file). */
async function deleteStale(client: DataplaneClient, plan: SyncPlan): Promise<void> {
  for (const d of plan.deletes) {
    await client.deleteStorage(d.kind, d.name).catch((e: unknown) => {
      if (!(e instanceof DataplaneRequestError && e.status === 404)) throw e;
    });
  }
}
