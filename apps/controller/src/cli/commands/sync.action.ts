import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isHapticError } from '#core';
import { DataplaneClient, syncPod } from '#dataplane';
import type { RenderedOutputs } from '#events';
import { ExitCode } from '../cli-io.js';
import type { CliContext } from '../command.js';
import { VERSION } from '../version.js';

export interface SyncFlags {
  url: string;
  username: string;
  passwordFile: string;
  dir: string;
  output: string;
}

function readFolder(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const out: Record<string, string> = {};
  for (const n of readdirSync(dir).sort()) out[n] = readFileSync(join(dir, n), 'utf8');
  return out;
}

/** Reads a `haptic render -o DIR` tree: crt-lists are the files the configuration names as such. */
export function readRenderedDir(dir: string): RenderedOutputs {
  const haproxyConfig = readFileSync(join(dir, 'haproxy.cfg'), 'utf8');
  const files = readFolder(join(dir, 'files'));
  const listNames = new Set(
    [...haproxyConfig.matchAll(/\bcrt-list\s+"?([^\s"]+)/g)].map((m) => basename(m[1] ?? '')),
  );
  const crtLists: Record<string, string> = {};
  const general: Record<string, string> = {};
  for (const [n, t] of Object.entries(files)) (listNames.has(n) ? crtLists : general)[n] = t;
  return {
    haproxyConfig,
    maps: readFolder(join(dir, 'maps')),
    sslCertificates: readFolder(join(dir, 'ssl')),
    files: general,
    crtLists,
  };
}

/** `haptic sync`: one deployment with the controller's engine; exit 1 naming what the API refused. */
export async function sync(flags: SyncFlags, ctx: CliContext): Promise<number> {
  const { io } = ctx;
  if (flags.output !== 'text' && flags.output !== 'json') {
    io.err(`haptic sync: -o must be text or json, not ${flags.output}`);
    return ExitCode.invalidInput;
  }
  let outputs: RenderedOutputs;
  let password: string;
  try {
    outputs = readRenderedDir(flags.dir);
    password = readFileSync(flags.passwordFile, 'utf8').trim();
  } catch (e) {
    io.err(`haptic sync: ${e instanceof Error ? e.message : String(e)}`);
    return ExitCode.invalidInput;
  }
  const client = new DataplaneClient({
    url: flags.url,
    username: flags.username,
    password,
    identity: `haptic-sync/${VERSION}`,
  });
  try {
    const r = await syncPod(client, outputs);
    if (flags.output === 'json') {
      io.out(
        JSON.stringify({ reloaded: r.reloaded, reloadId: r.reloadId, operations: r.operations }),
      );
    } else {
      for (const op of r.operations)
        io.out(`${op.runtime ? 'runtime' : 'reload '} ${op.kind} ${op.target}`);
      io.out(
        r.operations.length === 0
          ? 'haptic sync: nothing to do'
          : `haptic sync: ${r.operations.length} operations, ${r.reloaded ? `reloaded (${r.reloadId ?? 'synchronous'})` : 'no reload'}`,
      );
    }
    return ExitCode.ok;
  } catch (e) {
    io.err(
      `haptic sync: the API refused: ${isHapticError(e) || e instanceof Error ? e.message : String(e)}`,
    );
    return ExitCode.failure;
  }
}
