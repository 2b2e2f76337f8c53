import { diffConfig, parseConfig } from '#haproxy-config';
import type { RenderedOutputs } from '#events';

const sameKeys = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) => {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
};
const sameRecord = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  sameKeys(a, b) && Object.keys(a).every((k) => a[k] === b[k]);

// A review compares many proposed renders with one baseline: parse each config text once.
const PARSED = new Map<string, ReturnType<typeof parseConfig>>();
function parsed(text: string): ReturnType<typeof parseConfig> {
  let config = PARSED.get(text);
  if (config)
    PARSED.delete(text); // most recently used last
  else {
    config = parseConfig(text);
    // Keep the last few (the baseline and the newest proposal), never the whole history.
    if (PARSED.size >= 4) PARSED.delete(PARSED.keys().next().value as string);
  }
  PARSED.set(text, config);
  return config;
}

/**
 * True when `next` differs from `base` (a render that passed `haproxy -c`) only in parts HAProxy
 * applies at run time without re-reading its configuration: server lines the runtime API sets,
 * adds or removes, and the entries of existing maps. Any structural difference in haproxy.cfg,
 * a new or removed map, any change of files, certificates or crt-lists needs `haproxy -c`.
 */
export function onlyRuntimeChanges(base: RenderedOutputs, next: RenderedOutputs): boolean {
  if (!sameKeys(base.maps, next.maps)) return false;
  if (!sameRecord(base.files, next.files)) return false;
  if (!sameRecord(base.sslCertificates, next.sslCertificates)) return false;
  if (!sameRecord(base.crtLists, next.crtLists)) return false;
  if (base.haproxyConfig === next.haproxyConfig) return true;
  try {
    return (
      diffConfig(parsed(base.haproxyConfig), parsed(next.haproxyConfig)).structural.length === 0
    );
  } catch {
    return false;
  }
}
