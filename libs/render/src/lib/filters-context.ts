import { toValue, type Context } from 'liquidjs';
import { outputText } from './escaper.js';
import { invalid } from './filters-haproxy.js';
import { stateOf, type OutputDirs } from './state.js';

type FilterThis = { context: Context };

/** The objects of `resources.<name>` (`input`) with these index keys, the read recorded. */
export function lookup(
  ctx: Context,
  filter: string,
  input: unknown,
  keys: readonly unknown[],
): readonly object[] {
  const state = stateOf(ctx);
  const list: unknown = toValue(input);
  const watched =
    list !== null && typeof list === 'object' ? state.listOwners.get(list) : undefined;
  if (watched === undefined) {
    throw new TypeError(`${filter}: the input must be resources.<name>`);
  }
  return state.snapshot.lookup(
    watched,
    keys.map((k) => outputText(k)),
  );
}

/** `resources.services | get: ns, name`: the one object with these index keys, or nil. */
export function getFilter(this: FilterThis, input: unknown, ...keys: unknown[]): unknown {
  return lookup(this.context, 'get', input, keys)[0];
}

/** `resources.endpointslices | fetch: ns, svc`: every match; fewer keys than indexBy = prefix. */
export function fetchFilter(this: FilterThis, input: unknown, ...keys: unknown[]): unknown[] {
  return [...lookup(this.context, 'fetch', input, keys)];
}

const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._+@=,-]*$/;

/** A file name that stays inside its directory; refuses anything else. */
export function checkedFileName(ctx: Context, filter: string, name: unknown): string {
  const v = outputText(name);
  if (!FILE_NAME.test(v) || v.length > 255) {
    invalid(ctx, filter, v, 'is not a plain file name (letters, digits, . _ - + @ = ,)');
  }
  return v;
}

function pathIn(dir: string, name: string): string {
  const base = dir.replace(/\/+$/, '');
  return base === '' ? name : `${base}/${name}`;
}

function pathFilter(filter: string, dirOf: (d: OutputDirs) => string) {
  return function (this: FilterThis, name: unknown): string {
    return pathIn(dirOf(stateOf(this.context).dirs), checkedFileName(this.context, filter, name));
  };
}

/** `"hosts.map" | map_path`: where a map file lives on the HAProxy side. */
export const mapPath = pathFilter('map_path', (d) => d.maps);
/** `"error.http" | file_path`: where a general file lives on the HAProxy side. */
export const filePath = pathFilter('file_path', (d) => d.general);
/** `"site.pem" | cert_path`: where a certificate lives on the HAProxy side. */
export const certPath = pathFilter('cert_path', (d) => d.ssl);
/**
 * `"certs.list" | crt_list_path`: where a crt-list lives on the HAProxy side. crt-lists are kept
 * with the general files: that storage exists on every Dataplane API version.
 */
export const crtListPath = pathFilter('crt_list_path', (d) => d.general);
