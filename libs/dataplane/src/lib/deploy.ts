import type { RenderedOutputs } from '#events';
import {
  DataplaneConfigRejectedError,
  DataplaneVersionConflictError,
} from '../dataplane.errors.js';
import type { DataplaneClient, StorageKind } from './client.js';

export interface DeployOptions {
  /** How often a 409 version mismatch is retried after re-reading the version. */
  readonly maxConflictRetries?: number;
  readonly reloadTimeoutMs?: number;
  readonly pollMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface DeployOutcome {
  /** False when the pod already ran exactly this configuration and these files. */
  readonly changed: boolean;
  readonly reloaded: boolean;
  readonly version: number;
  readonly reloadId?: string;
  readonly storageWrites: number;
  readonly storageDeletes: number;
  readonly conflictsRetried: number;
}

/** Which storage each output kind lives in (crt-lists go to general storage: it exists on every API version). */
export function storageFiles(
  outputs: RenderedOutputs,
): Record<StorageKind, Readonly<Record<string, string>>> {
  return {
    maps: outputs.maps,
    ssl_certificates: outputs.sslCertificates,
    general: { ...outputs.files, ...outputs.crtLists },
  };
}

/** The configuration without the lines the Dataplane API adds (`# _version=`, `# _md5hash=`...). */
export function withoutApiHeader(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^# _(version|md5hash|cluster_version)=/.test(line))
    .join('\n');
}

async function syncStorage(
  client: DataplaneClient,
  outputs: RenderedOutputs,
): Promise<{ writes: number; stale: [StorageKind, string][] }> {
  let writes = 0;
  const stale: [StorageKind, string][] = [];
  for (const [kind, desired] of Object.entries(storageFiles(outputs)) as [
    StorageKind,
    Record<string, string>,
  ][]) {
    const existing = new Set((await client.listStorage(kind)).map((f) => f.storage_name));
    for (const [name, content] of Object.entries(desired).sort(([a], [b]) => a.localeCompare(b))) {
      const exists = existing.has(name);
      if (exists && (await client.readStorage(kind, name)) === content) continue;
      await client.writeStorage(kind, name, content, exists);
      writes++;
    }
    for (const name of existing) if (!(name in desired)) stale.push([kind, name]);
  }
  return { writes, stale };
}

/**
 * The simple, safe deployment: files first (no reload), then one versioned push of haproxy.cfg
 * with a synchronous reload when anything changed, retried on version conflicts; files the new
 * configuration no longer has are removed last.
 */
export async function deployFull(
  client: DataplaneClient,
  outputs: RenderedOutputs,
  opts: DeployOptions = {},
): Promise<DeployOutcome> {
  const { writes, stale } = await syncStorage(client, outputs);
  let conflicts = 0;
  for (;;) {
    const running = await client.getRaw();
    const configSame =
      withoutApiHeader(running.text).trim() === withoutApiHeader(outputs.haproxyConfig).trim();
    if (configSame && writes === 0 && stale.length === 0) {
      return {
        changed: false,
        reloaded: false,
        version: running.version,
        storageWrites: 0,
        storageDeletes: 0,
        conflictsRetried: conflicts,
      };
    }
    try {
      const pushed = await client.pushRaw(outputs.haproxyConfig, {
        version: running.version,
        forceReload: true,
      });
      if (pushed.reloadId) await waitForReload(client, pushed.reloadId, opts);
      for (const [kind, name] of stale) await client.deleteStorage(kind, name);
      return {
        changed: true,
        reloaded: true,
        version: pushed.version,
        ...(pushed.reloadId ? { reloadId: pushed.reloadId } : {}),
        storageWrites: writes,
        storageDeletes: stale.length,
        conflictsRetried: conflicts,
      };
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

async function waitForReload(
  client: DataplaneClient,
  id: string,
  opts: DeployOptions,
): Promise<void> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + (opts.reloadTimeoutMs ?? 30_000);
  for (;;) {
    const r = await client.reload(id);
    if (r.status === 'succeeded') return;
    if (r.status === 'failed')
      throw new DataplaneConfigRejectedError(`reload ${id} failed: ${r.response ?? 'no detail'}`);
    if (Date.now() > deadline)
      throw new DataplaneConfigRejectedError(`reload ${id} still in progress after the timeout`);
    await sleep(opts.pollMs ?? 100);
  }
}
