import type { RenderedOutputs } from '#events';

/**
 * Everything one render produces (the shared type from `#events`). On the HAProxy side maps live
 * in mapsDir, certificates in sslCertsDir, general files and crt-lists in generalStorageDir.
 */
export type { RenderedOutputs };

/** Where one output line came from: the template (or snippet) name, its 1-based line, the object. */
export interface SourceLocation {
  readonly template: string;
  readonly line: number;
  readonly column?: number;
  /** The watched object being rendered, as `<watched>/<namespace>/<name>` (or any short label). */
  readonly object?: string;
}

/**
 * Output line → origin, filled by the renderer. `lines[i]` describes output line `i + 1`; a gap
 * (undefined) means the renderer did not know. The renderer may fill it sparsely.
 */
export interface SourceMap {
  readonly lines: readonly (SourceLocation | undefined)[];
}

/** Source maps per output, keyed like assertion targets: `haproxy.cfg`, `map:<name>`, ... */
export type SourceMaps = Readonly<Record<string, SourceMap>>;

/** An output addressed the way assertions name it. */
export type OutputTarget =
  'haproxy.cfg' | `map:${string}` | `file:${string}` | `cert:${string}` | `crt-list:${string}`;

/** Every output of a render as `[target, content]`, haproxy.cfg first, then sorted by kind and name. */
export function listOutputs(outputs: RenderedOutputs): [OutputTarget, string][] {
  const list: [OutputTarget, string][] = [['haproxy.cfg', outputs.haproxyConfig]];
  const add = (
    prefix: 'map' | 'file' | 'cert' | 'crt-list',
    rec: Readonly<Record<string, string>>,
  ) => {
    for (const name of Object.keys(rec).sort()) list.push([`${prefix}:${name}`, rec[name] ?? '']);
  };
  add('map', outputs.maps);
  add('file', outputs.files);
  add('cert', outputs.sslCertificates);
  add('crt-list', outputs.crtLists);
  return list;
}

/** The content of one output, or undefined when the render produced no such output. */
export function outputContent(outputs: RenderedOutputs, target: string): string | undefined {
  if (target === 'haproxy.cfg') return outputs.haproxyConfig;
  const colon = target.indexOf(':');
  if (colon < 0) return undefined;
  const kind = target.slice(0, colon);
  const name = target.slice(colon + 1);
  const rec =
    kind === 'map'
      ? outputs.maps
      : kind === 'file'
        ? outputs.files
        : kind === 'cert'
          ? outputs.sslCertificates
          : kind === 'crt-list'
            ? outputs.crtLists
            : undefined;
  return rec && Object.hasOwn(rec, name) ? rec[name] : undefined;
}

/** An empty render result (useful as a base in tests and for partial renders). */
export function emptyOutputs(haproxyConfig = ''): RenderedOutputs {
  return { haproxyConfig, maps: {}, files: {}, sslCertificates: {}, crtLists: {} };
}
