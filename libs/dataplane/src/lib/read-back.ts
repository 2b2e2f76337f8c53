import type { HapticStates } from '#events';
import { parseConfig } from '#haproxy-config';
import type { PodReadBack } from './fleet.js';

const API_HEADER = /^# _(version|md5hash|cluster_version)=/;

/** The configuration without the lines the Dataplane API adds (`# _version=`...). */
export function withoutApiHeader(text: string): string {
  return text
    .split('\n')
    .filter((line) => !API_HEADER.test(line))
    .join('\n');
}

/** A pod that serves nothing yet (no frontend, backend or listen section): new or emptied. */
export function isEmptyConfig(config: string): boolean {
  return !parseConfig(config).sections.some((s) =>
    ['frontend', 'backend', 'listen'].includes(s.type),
  );
}

/**
 * The deployment the renderer should start from: the configuration and maps most of the pods
 * that could be read and are not empty run (ties: the first pod in order); null when none.
 */
export function chooseReadBack(
  readBacks: readonly PodReadBack[],
): HapticStates['dataplane.readback'] {
  const groups = new Map<string, { config: string; maps: Record<string, string>; n: number }>();
  const sorted = [...readBacks].sort((a, b) =>
    `${a.pod.namespace}/${a.pod.name}`.localeCompare(`${b.pod.namespace}/${b.pod.name}`),
  );
  for (const r of sorted) {
    if (!r.files || isEmptyConfig(r.files.config)) continue;
    const config = withoutApiHeader(r.files.config).trim() + '\n';
    const maps = { ...r.files.maps };
    const key = JSON.stringify([config, Object.entries(maps).sort(([a], [b]) => (a < b ? -1 : 1))]);
    const g = groups.get(key);
    if (g) g.n++;
    else groups.set(key, { config, maps, n: 1 });
  }
  let best: { config: string; maps: Record<string, string>; n: number } | undefined;
  for (const g of groups.values()) if (!best || g.n > best.n) best = g;
  return {
    haproxyConfig: best?.config ?? null,
    maps: best?.maps ?? {},
    pods: readBacks.length,
    agreeing: best?.n ?? 0,
  };
}
