import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import type {
  V1Container,
  V1KeyToPath,
  V1Pod,
  V1Volume,
  V1VolumeProjection,
} from '@kubernetes/client-node';
import { fieldRefValue, resourceFieldValue, type ObjectLookup, type PodFacts } from './pod-env.js';
import { PodUnsupportedError } from './node-sim.errors.js';

/** Where the service-account token is mounted in a real pod; node-sim puts its kubeconfig beside it. */
export const SERVICE_ACCOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A volume cannot be filled yet (a Secret or ConfigMap it needs is missing): Kubernetes' FailedMount. */
export class VolumeMountError extends PodUnsupportedError {}

/** One file a volume holds: path inside the volume, content, and mode. */
interface VolumeFile {
  readonly path: string;
  readonly content: Buffer;
  readonly mode: number;
}

/** The folder of one volume inside a pod folder. */
export function volumeDir(podDir: string, volume: string): string {
  return join(podDir, 'v', volume);
}

function safeJoin(base: string, rel: string): string {
  const path = normalize(join(base, rel));
  if (!path.startsWith(base)) throw new PodUnsupportedError(`volume path ${rel} leaves its volume`);
  return path;
}

function keyedFiles(
  data: Readonly<Record<string, Buffer>>,
  items: readonly V1KeyToPath[] | undefined,
  defaultMode: number,
  what: string,
  optional: boolean,
): VolumeFile[] {
  if (items === undefined) {
    return Object.entries(data).map(([path, content]) => ({ path, content, mode: defaultMode }));
  }
  const out: VolumeFile[] = [];
  for (const item of items) {
    const content = data[item.key];
    if (content === undefined) {
      if (optional) continue;
      throw new VolumeMountError(`${what} has no key "${item.key}"`);
    }
    out.push({ path: item.path, content, mode: item.mode ?? defaultMode });
  }
  return out;
}

type Source = Pick<V1Volume, 'secret' | 'configMap' | 'downwardAPI'> &
  Pick<V1VolumeProjection, 'serviceAccountToken'>;

function sourceFiles(
  pod: V1Pod,
  src: Source,
  ctx: VolumeContext,
  defaultMode: number,
): VolumeFile[] {
  const ns = pod.metadata?.namespace ?? 'default';
  if (src.secret !== undefined) {
    const name = src.secret.secretName ?? (src.secret as { name?: string }).name ?? '';
    const secret = ctx.lookup.secret(ns, name);
    const optional = src.secret.optional === true;
    if (secret === undefined && !optional) throw new VolumeMountError(`secret "${name}" not found`);
    const data = Object.fromEntries(
      Object.entries(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
    );
    return keyedFiles(
      data,
      src.secret.items,
      src.secret.defaultMode ?? defaultMode,
      `secret "${name}"`,
      optional,
    );
  }
  if (src.configMap !== undefined) {
    const name = src.configMap.name ?? '';
    const cm = ctx.lookup.configMap(ns, name);
    const optional = src.configMap.optional === true;
    if (cm === undefined && !optional) throw new VolumeMountError(`configmap "${name}" not found`);
    const data: Record<string, Buffer> = {};
    for (const [k, v] of Object.entries(cm?.data ?? {})) data[k] = Buffer.from(v, 'utf8');
    for (const [k, v] of Object.entries(cm?.binaryData ?? {})) data[k] = Buffer.from(v, 'base64');
    return keyedFiles(
      data,
      src.configMap.items,
      src.configMap.defaultMode ?? defaultMode,
      `configmap "${name}"`,
      optional,
    );
  }
  if (src.downwardAPI !== undefined) {
    return (src.downwardAPI.items ?? []).map((item) => {
      const container =
        pod.spec?.containers.find((c) => c.name === item.resourceFieldRef?.containerName) ??
        pod.spec?.containers[0];
      const value =
        item.fieldRef !== undefined
          ? fieldRefValue(pod, item.fieldRef.fieldPath, ctx.facts)
          : resourceFieldValue(
              container ?? { name: '' },
              item.resourceFieldRef?.resource ?? '',
              item.resourceFieldRef?.divisor,
            );
      return { path: item.path, content: Buffer.from(value), mode: item.mode ?? defaultMode };
    });
  }
  if (src.serviceAccountToken !== undefined) {
    return [
      { path: src.serviceAccountToken.path, content: Buffer.from(ctx.token), mode: defaultMode },
    ];
  }
  return [];
}

/** What volumes need besides the pod: the caches, the downward-API facts, the token to hand out. */
export interface VolumeContext {
  readonly lookup: ObjectLookup;
  readonly facts: PodFacts;
  readonly token: string;
}

/** The files a volume holds now, or undefined for a plain folder (emptyDir and the like). */
export function volumeFiles(
  pod: V1Pod,
  volume: V1Volume,
  ctx: VolumeContext,
): VolumeFile[] | undefined {
  if (volume.projected !== undefined) {
    const mode = volume.projected.defaultMode ?? 0o644;
    return (volume.projected.sources ?? []).flatMap((s) =>
      sourceFiles(pod, s as Source, ctx, mode),
    );
  }
  if (
    volume.secret !== undefined ||
    volume.configMap !== undefined ||
    volume.downwardAPI !== undefined
  ) {
    return sourceFiles(pod, volume, ctx, 0o644);
  }
  return undefined;
}

async function writeIfChanged(path: string, content: Buffer, mode: number): Promise<boolean> {
  const old = await readFile(path).catch(() => undefined);
  if (old?.equals(content) === true) return false;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content, { mode });
  return true;
}

/**
 * Creates every volume folder of the pod and (re)writes the Secret, ConfigMap, downward-API and
 * projected contents. Returns how many files changed (so updates reach mounted files, as on a node).
 */
export async function syncVolumes(pod: V1Pod, podDir: string, ctx: VolumeContext): Promise<number> {
  let changed = 0;
  for (const volume of pod.spec?.volumes ?? []) {
    const dir = volumeDir(podDir, volume.name);
    await mkdir(dir, { recursive: true });
    const files = volumeFiles(pod, volume, ctx);
    for (const f of files ?? []) {
      if (await writeIfChanged(safeJoin(dir, f.path), f.content, f.mode & 0o777)) changed++;
    }
  }
  return changed;
}

/** Maps a path as the container sees it (`/etc/haproxy/haproxy.cfg`) to the file in the pod folder. */
export type PathMapper = (path: string) => string;

/** The container's mounts as a path mapper; paths outside every mount stay as they are. */
export function pathMapper(
  container: V1Container,
  podDir: string,
  serviceAccountDir?: string,
): PathMapper {
  const mounts: [string, string][] = (container.volumeMounts ?? []).map((m) => [
    m.mountPath.replace(/\/+$/, '') || '/',
    m.subPath ? join(volumeDir(podDir, m.name), m.subPath) : volumeDir(podDir, m.name),
  ]);
  if (serviceAccountDir !== undefined && !mounts.some(([m]) => m === SERVICE_ACCOUNT_PATH)) {
    mounts.push([SERVICE_ACCOUNT_PATH, serviceAccountDir]);
  }
  mounts.sort(([a], [b]) => b.length - a.length);
  return (path) => {
    for (const [mount, host] of mounts) {
      if (path === mount) return host;
      if (path.startsWith(`${mount}/`)) return join(host, path.slice(mount.length + 1));
    }
    return path;
  };
}
