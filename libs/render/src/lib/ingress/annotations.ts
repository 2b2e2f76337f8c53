// The backend lines of the Ingress library: one backend of `ingress.backends` built from the
// settings its annotations give (annotation-reader.ts) and, with the endpoint lists, its server
// lines — the whole section in one output. Bytes are the Liquid version's.
import type { Context } from 'liquidjs';
import { OutputLines, OutputSections, escapeLine, escapeOutput } from '../escaper.js';
import { certPath } from '../filters-context.js';
import { deployedBackend } from '../fragment-globals.js';
import { haproxyQuote, headerValue, intRange } from '../filters-haproxy.js';
import { filterError } from '../provenance.js';
import { stateOf } from '../state.js';
import { AnnotationReader, defaultSettings, type Settings } from './annotation-reader.js';
import { serverLines, slotsOf } from './filters.js';
import { field, isNil, liquidSplit as split, orDefault, str } from '../liquid-values.js';

type FilterThis = { context: Context };

/** One backend of `ingress.backends`, as the filter reads it. */
interface BackendParam {
  readonly name?: unknown;
  readonly namespace?: unknown;
  readonly service?: unknown;
  readonly port?: unknown;
  readonly ingress?: unknown;
}

/** What `ingress_backend` gives the template to print. */
export interface BackendOutput {
  /** The lines after `backend <name>` and before the server lines, each after "\n  ". */
  readonly lines: OutputLines;
  /** The options of every server line (protocol, TLS). */
  readonly opts: string;
  /** Server slots: the server-slots annotation, else `extra.server_slots(_fixed)`. */
  readonly slots: number;
  /** The affinity cookie name, or "". */
  readonly cookie: unknown;
  /** The userlist of basic auth (after a blank line), or nothing. */
  readonly userlist: OutputLines;
  /** With the endpoint lists: the server lines (as `server_slots | server_lines` print them). */
  readonly servers?: OutputLines;
  /** With the endpoint lists: the whole section — `backend <name>`, lines, servers, userlist. */
  readonly section?: OutputSections;
}

/** With the endpoint lists: the backend's parts, printed as its whole section. */
class BackendSection extends OutputSections implements BackendOutput {
  readonly section: OutputSections = this;

  constructor(
    head: OutputLines,
    readonly lines: OutputLines,
    readonly opts: string,
    readonly slots: number,
    readonly cookie: unknown,
    readonly userlist: OutputLines,
    readonly servers: OutputLines,
  ) {
    super([head, lines, servers, userlist]);
  }
}

/**
 * Slots unless the server-slots annotation gave them: `server_slots` (default 2) where HAProxy's
 * runtime API can add servers past them (plain server lines on a dynamic balance algorithm),
 * `server_slots_fixed` (default 8) where it cannot (server options, a cookie, a hashing
 * balance, a backend snippet), since growing past them reloads. Both 1-1024.
 */
function slotsFor(ctx: Context, s: Settings, opts: string, extra: unknown): number {
  const fixed =
    opts !== '' ||
    s.cookie !== '' ||
    s.balance === 'source' ||
    s.balance === 'uri' ||
    s.snippet.length > 0;
  const value = fixed
    ? orDefault(field(extra, 'server_slots_fixed'), 8)
    : orDefault(field(extra, 'server_slots'), 2);
  return intRange.call({ context: ctx }, value, 1, 1024);
}

function serverOpts(ctx: Context, s: Settings): string {
  let opts = '';
  if (s.proto === 'h2' || s.proto === 'grpc') opts += s.tls ? ' alpn h2' : ' proto h2';
  if (!s.tls) return opts;
  if (s.tlsCa !== '')
    opts += ` ssl verify required ca-file ${certPath.call({ context: ctx }, s.tlsCa)}`;
  else opts += ' ssl verify none';
  if (!isNil(s.tlsSni)) {
    opts += ` sni str(${str(s.tlsSni)})`;
    if (s.tlsCa !== '') opts += ` verifyhost ${str(s.tlsSni)}`;
  }
  return opts;
}

function backendLines(ctx: Context, be: string, s: Settings): string[] {
  // Each value is checked as its own `{{ }}` was (same refusal, same attribution).
  const out = (v: unknown): string => escapeOutput.call({ context: ctx }, v);
  const q = { context: ctx };
  // whole lines the annotation reader vetted (timeouts it built, operator-allowed snippet lines)
  const line = (v: unknown): string => escapeLine.call(q, v);
  const lines = [`balance ${out(s.balance)}`];
  if (s.balance === 'source' || s.balance === 'uri') lines.push('hash-type consistent');
  for (const l of s.timeouts) lines.push(line(l));
  if (s.sslRedirect)
    lines.push(`http-request redirect scheme https code ${out(s.sslCode)} if !{ ssl_fc }`);
  if (s.allow !== '') lines.push(`http-request deny deny_status 403 if !{ src${out(s.allow)} }`);
  if (s.deny !== '') lines.push(`http-request deny deny_status 403 if { src${out(s.deny)} }`);
  if (!isNil(s.rate)) {
    lines.push('stick-table type ipv6 size 100k expire 10s store http_req_rate(1s)');
    lines.push('http-request track-sc0 src');
    lines.push(`http-request deny deny_status 429 if { sc_http_req_rate(0) gt ${out(s.rate)} }`);
  }
  if (s.users.length > 0)
    lines.push(
      `http-request auth realm ${out(haproxyQuote.call(q, s.realm))} unless { http_auth(ul_${out(be)}) }`,
    );
  if (!isNil(s.redirectTo))
    lines.push(
      `http-request redirect location ${out(headerValue.call(q, s.redirectTo))} code ${out(s.redirectCode)}`,
    );
  for (const [n, v] of s.reqHeaders)
    lines.push(`http-request set-header ${out(n)} ${out(headerValue.call(q, v))}`);
  for (const [n, v] of s.respHeaders)
    lines.push(`http-response set-header ${out(n)} ${out(headerValue.call(q, v))}`);
  if (s.cookie !== '') lines.push(`cookie ${out(s.cookie)} insert indirect nocache httponly`);
  for (const l of s.snippet) lines.push(line(l));
  return lines;
}

function userlist(ctx: Context, be: string, users: readonly string[]): OutputLines {
  if (users.length === 0) return new OutputLines([], '\n');
  const out = (v: unknown): string => escapeOutput.call({ context: ctx }, v);
  const lines = ['', `userlist ul_${out(be)}`];
  for (const u of users) {
    const user = split(u, ':')[0] ?? '';
    lines.push(`  user ${out(user)} password ${out(u.replace(user, '').replace(':', ''))}`);
  }
  return new OutputLines(lines, '\n');
}

/**
 * `backend | ingress_backend: extra, resources.secrets[, resources.endpointslices,
 * resources.services, previous.backends]`: one backend of `ingress.backends` ready to print — its
 * lines up to the server lines (balance, timeouts, redirects, source ranges, rate limit, basic
 * auth, headers, affinity, the operator-enabled snippet), the options and slot count of its server
 * lines, its affinity cookie and its userlist. Given the endpoint lists and the deployed backends,
 * also its server lines (`servers`, what `server_slots | server_lines` print, each endpoint on the
 * slot it has in `previous.backends[name].servers`) and the whole section (`section`, also what
 * the result prints as). An `ing_`
 * backend reads its Ingress's haproxy-haptic.org/ annotations (and the Secrets they name, looked
 * up in the given list); a value outside its grammar fails the render for that Ingress, as
 * `{% fail %}` would.
 */
export function ingressBackend(
  this: FilterThis,
  backend: unknown,
  extra: unknown,
  secretsList: unknown,
  ...endpoints: unknown[]
): BackendOutput {
  const ctx = this.context;
  // The backend's Ingress is in scope while the backend is built, so a failure (a `fail`, a
  // refused value) names it as the object being rendered, whatever the template has in scope.
  ctx.push({ ing: field(backend, 'ingress') });
  try {
    return backendOf(ctx, backend ?? {}, extra, secretsList, endpoints);
  } catch (err) {
    throw filterError(ctx, 'ingress_backend', err);
  } finally {
    ctx.pop();
  }
}

function backendOf(
  ctx: Context,
  b: BackendParam,
  extra: unknown,
  secretsList: unknown,
  endpoints: readonly unknown[],
): BackendOutput {
  const be = str(b.name);
  const s = defaultSettings(extra);
  if (be.startsWith('ing_')) {
    const secrets =
      secretsList !== null && typeof secretsList === 'object'
        ? stateOf(ctx).listOwners.get(secretsList)
        : undefined;
    if (secrets === undefined)
      throw new TypeError('ingress_backend: the Secrets must be resources.<name>');
    const ing = b.ingress !== null && typeof b.ingress === 'object' ? b.ingress : {};
    new AnnotationReader(ctx, ing, extra, secrets).read(s);
  }
  const opts = serverOpts(ctx, s);
  const slots = s.slots ?? slotsFor(ctx, s, opts, extra);
  const lines = new OutputLines(backendLines(ctx, be, s), '\n  ');
  const users = userlist(ctx, be, s.users);
  if (endpoints.length === 0) return { lines, opts, slots, cookie: s.cookie, userlist: users };
  if (endpoints.length !== 3)
    throw new TypeError(
      'ingress_backend: the endpoint arguments are resources.<slices>, resources.<services>, previous.backends',
    );
  const [slicesList, servicesList, deployed] = endpoints;
  // Only this backend's entry is read (a fragment depends on its own deployed servers).
  const deployedServers = field(deployedBackend(deployed, be), 'servers');
  const found = slotsOf(ctx, slicesList, servicesList, b, slots, deployedServers);
  const servers = serverLines(found, opts, s.cookie);
  const head = new OutputLines([`backend ${escapeOutput.call({ context: ctx }, be)}`], '');
  return new BackendSection(head, lines, opts, slots, s.cookie, users, servers);
}
