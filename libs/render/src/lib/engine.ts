import { Liquid, toValue, type FilterImplOptions } from 'liquidjs';
import { escapeOutput } from './escaper.js';
import {
  certPath,
  crtListPath,
  fetchFilter,
  filePath,
  getFilter,
  mapPath,
} from './filters-context.js';
import {
  fromJson,
  fromYaml,
  globMatchFilter,
  indent,
  mapLines,
  regexMatch,
  regexReplace,
  sortBy,
  toYaml,
} from './filters-data.js';
import {
  base64Decode,
  haproxyQuote,
  haproxyRegex,
  headerValue,
  intRange,
  validCidr,
  regexEscape,
  validDuration,
  validCertificate,
  validHostname,
  validPath,
} from './filters-haproxy.js';
import { FragmentRenderTag } from './fragment-tag.js';
import { ingressBackend } from './ingress/annotations.js';
import { nginxBackend, nginxCanaries } from './ingress-nginx/backend.js';
import { nginxClientAuth } from './ingress-nginx/client-auth-lines.js';
import { serverLines, serverSlots } from './ingress/filters.js';
import { TemplateValueError, filterError } from './provenance.js';
import { installSyncValues } from './sync-values.js';
import { FailTag, registerTag, renderGlobTag } from './tags.js';

/** haptic's filters on top of Liquid's standard set (names are a user-facing contract). */
export const HAPTIC_FILTERS: Readonly<Record<string, FilterImplOptions>> = {
  get: getFilter,
  fetch: fetchFilter,
  map_path: mapPath,
  file_path: filePath,
  cert_path: certPath,
  crt_list_path: crtListPath,
  sort_by: sortBy,
  glob_match: globMatchFilter,
  regex_match: regexMatch,
  regex_replace: regexReplace,
  indent,
  map_lines: mapLines,
  to_yaml: toYaml,
  from_json: fromJson,
  from_yaml: fromYaml,
  haproxy_quote: haproxyQuote,
  header_value: headerValue,
  regex_escape: regexEscape,
  haproxy_regex: haproxyRegex,
  valid_hostname: validHostname,
  valid_path: validPath,
  valid_duration: validDuration,
  int_range: intRange,
  valid_cidr: validCidr,
  base64_decode: base64Decode,
  valid_certificate: validCertificate,
  server_slots: serverSlots,
  server_lines: serverLines,
  ingress_backend: ingressBackend,
  nginx_backend: nginxBackend,
  nginx_canaries: nginxCanaries,
  nginx_client_auth: nginxClientAuth,
};

/** The `this` liquidjs gives a filter (not exported under its own name). */
type FilterThis = ThisParameterType<Extract<FilterImplOptions, (...args: never[]) => unknown>>;
type FilterFn = (this: FilterThis, value: unknown, ...args: unknown[]) => unknown;

/** A filter whose unexpected errors name the filter and the object being rendered. */
function located(name: string, impl: FilterFn): FilterFn {
  return function (this: FilterThis, value: unknown, ...args: unknown[]): unknown {
    try {
      return impl.call(this, value, ...args);
    } catch (err) {
      throw filterError(this.context, name, err);
    }
  };
}

const DATE_FILTERS = [
  'date',
  'date_to_xmlschema',
  'date_to_rfc822',
  'date_to_string',
  'date_to_long_string',
];

/**
 * The same snapshot must give the same bytes: `sample` (random) becomes an unknown filter, and
 * the date filters refuse "now"/"today" (dates come from objects).
 */
function makeDeterministic(engine: Liquid): void {
  const filters = engine.filters as Record<string, unknown>;
  delete filters['sample'];
  for (const name of DATE_FILTERS) {
    const original = engine.filters[name];
    if (typeof original !== 'function') continue;
    engine.registerFilter(name, function (this: FilterThis, value: unknown, ...args: unknown[]) {
      const v: unknown = toValue(value);
      if (v === 'now' || v === 'today') {
        throw new TemplateValueError(
          'invalid-value',
          `${name}: "${v}" is not allowed; renders must be deterministic (use a date from an object)`,
        );
      }
      return original.call(this, value, ...args) as unknown;
    });
  }
}

/**
 * One Liquid engine over the config's snippets: strict about filters and tags, lenient about
 * properties. `escaped` engines (haproxy.cfg, maps) pass every `{{ }}` through the escaper.
 */
export function createEngine(snippets: Readonly<Record<string, string>>, escaped: boolean): Liquid {
  installSyncValues();
  const engine = new Liquid({
    templates: { ...snippets },
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    dynamicPartials: true,
    relativeReference: false,
    // Large enough never to evict: every template of a config version is parsed exactly once.
    cache: 1_000_000,
    // Determinism: dates never depend on the machine's zone or locale.
    timezoneOffset: 0,
    locale: 'en-US',
    ...(escaped ? { outputEscape: escapeOutput } : {}),
  });
  for (const [name, impl] of Object.entries(HAPTIC_FILTERS)) {
    engine.registerFilter(name, located(name, impl as FilterFn));
  }
  makeDeterministic(engine);
  engine.registerTag('fail', FailTag);
  engine.registerTag('render', FragmentRenderTag);
  engine.registerTag('render_glob', renderGlobTag(Object.keys(snippets)));
  engine.registerTag('register_certificate', registerTag('register_certificate', 'certificates'));
  engine.registerTag('register_crt_list', registerTag('register_crt_list', 'crtLists'));
  engine.registerTag('register_file', registerTag('register_file', 'generalFiles'));
  return engine;
}
