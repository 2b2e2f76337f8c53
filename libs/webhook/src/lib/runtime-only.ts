import { diffConfig, parseConfig } from '#haproxy-config';
import type { RenderedOutputs } from '#events';

const sameKeys = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) => {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
};
const sameRecord = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  sameKeys(a, b) && Object.keys(a).every((k) => a[k] === b[k]);

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
      diffConfig(parseConfig(base.haproxyConfig), parseConfig(next.haproxyConfig)).structural
        .length === 0
    );
  } catch {
    return false;
  }
}
