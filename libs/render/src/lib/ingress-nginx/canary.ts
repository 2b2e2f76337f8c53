// ingress-nginx canaries: an Ingress with `canary: "true"` is the canary of the served Ingress
// with the same host and path (never a conflict with it). Each such pair becomes a "split": the
// route tables send the pair's host+path to a split name, and the frontend lines resolve that
// name to the canary's backend or the mainline's by ingress-nginx's rules, in its precedence
// (header, then cookie, then weight). A canary without a mainline is left out with a notice.
import type { IngressBackend, ReadIngress } from '../ingress/model.js';
import { NginxReader } from './reader.js';

/** The canary rules of one canary Ingress (ingress-nginx's traffic-shaping policy). */
export interface CanaryRules {
  readonly header: string | undefined;
  readonly headerValue: string | undefined;
  readonly headerPattern: string | undefined;
  readonly cookie: string | undefined;
  readonly weight: number;
  /** ingress-nginx's total: canary-weight-total when above 100, else 100. */
  readonly total: number;
  /**
   * affinity-canary-behavior (of the canary Ingress): sticky (the default) gives the canary the
   * mainline's session affinity, so a client the canary's cookie names stays on the canary;
   * legacy leaves the canary without affinity.
   */
  readonly sticky: boolean;
}

/** One mainline route with a canary: its map value `name` resolves to `main` or `canary`. */
export interface CanarySplit {
  readonly name: string;
  readonly main: string;
  readonly canary: string;
  readonly rules: CanaryRules;
  /** The mainline's affinity cookie (`affinity: cookie`), or undefined without affinity. */
  readonly affinity: string | undefined;
}

/** The prefix of a canary server's affinity cookie value (the mainline's are its server names). */
export const CANARY_COOKIE_PREFIX = 'canary-';

const HEADER_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const COOKIE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
// printable ASCII without the single quote the HAProxy pattern is written in
const PATTERN_VALUE = /^[\x20-\x26\x28-\x7e]{1,1024}$/;

/** Whether an Ingress is a canary (ingress-nginx's boolean; a bad value refuses it). */
export function isCanary(ing: object): boolean {
  return new NginxReader(ing, {}).flag('canary', false);
}

function checked(r: NginxReader, name: string, grammar: RegExp, what: string) {
  const v = r.get(name);
  if (v === undefined || v === '') return undefined;
  if (!grammar.test(v)) r.fail(name, `${JSON.stringify(v)} is not ${what}`);
  return v;
}

/** The canary-* annotations of a canary Ingress, checked (throws NginxRefusal). */
export function readCanary(ing: object): CanaryRules {
  const r = new NginxReader(ing, {});
  const header = checked(r, 'canary-by-header', HEADER_NAME, 'a header name');
  const headerValue = checked(
    r,
    'canary-by-header-value',
    PATTERN_VALUE,
    'printable text without a single quote',
  );
  const headerPattern = checked(
    r,
    'canary-by-header-pattern',
    PATTERN_VALUE,
    'printable text without a single quote',
  );
  if (headerPattern !== undefined) {
    try {
      new RegExp(headerPattern);
    } catch {
      r.fail(
        'canary-by-header-pattern',
        `${JSON.stringify(headerPattern)} is not a regular expression`,
      );
    }
  }
  const cookie = checked(r, 'canary-by-cookie', COOKIE_NAME, 'a cookie name');
  const total = Math.max(100, r.int('canary-weight-total', 1, 1_000_000_000) ?? 100);
  const weight = r.int('canary-weight', 0, 1_000_000_000) ?? 0;
  const behavior = r.get('affinity-canary-behavior')?.trim() || 'sticky';
  if (behavior !== 'sticky' && behavior !== 'legacy')
    r.fail('affinity-canary-behavior', `${JSON.stringify(behavior)} is not sticky or legacy`);
  return {
    header,
    headerValue,
    headerPattern,
    cookie,
    weight,
    total,
    sticky: behavior === 'sticky',
  };
}

/** Where a claim is served (ingress-nginx's location: host and path; Exact apart). */
const location = (c: ReadIngress['claims'][number]): string =>
  `${c.kind === 'E' ? 'E' : 'P'} ${c.host} ${c.path}`;

/** What pairing the canaries with the served mainlines gives. */
export interface Paired {
  /** The served Ingresses with the paired claims routed to their split names. */
  readonly served: readonly ReadIngress[];
  readonly splits: readonly CanarySplit[];
  /** One backend per split: the canary's Service with the mainline's Ingress (its annotations). */
  readonly backends: readonly CanaryBackend[];
  /** The canaries no served Ingress has a host and path of (ingress-nginx ignores them). */
  readonly orphans: readonly ReadIngress[];
}

/** A canary backend: the canary's Service, served with the mainline's Ingress annotations. */
export interface CanaryBackend extends IngressBackend {
  /** The mainline's Service and port (its paths decide rewrites and the cookie path). */
  readonly main_service: string;
  readonly main_port: string;
  /** affinity-canary-behavior sticky: the canary keeps the mainline's affinity cookie. */
  readonly canary_sticky: boolean;
}

/** The canary backend of one mainline backend: the canary's Service, the mainline's Ingress. */
function canaryBackend(
  main: IngressBackend,
  c: ReadIngress,
  canaryBe: string,
  sticky: boolean,
): CanaryBackend {
  const of = c.backends.find((b) => b.backend.name === canaryBe)?.backend;
  if (!of) throw new Error(`canary backend ${canaryBe} of ${c.id} not found`);
  const [cns, cname] = c.id.split('/');
  return {
    name: `${main.name.replace(/^(svc|ing)_/, 'ing_')}_canary_${cns ?? ''}_${cname ?? ''}_${of.service}_${of.port}`,
    namespace: of.namespace,
    service: of.service,
    port: of.port,
    ingress: main.ingress,
    main_service: main.service,
    main_port: main.port,
    canary_sticky: sticky,
  };
}

/**
 * Pairs each canary (oldest first) with the served Ingress claiming the same host and path: a
 * location takes the first canary (ingress-nginx allows one). `backendOf` finds a served backend.
 */
export function pairCanaries(
  served: readonly ReadIngress[],
  canaries: readonly { read: ReadIngress; rules: CanaryRules }[],
  backendOf: (name: string) => IngressBackend | undefined,
): Paired {
  const owner = new Map<string, string>();
  for (const r of served)
    for (const c of r.claims) if (!owner.has(location(c))) owner.set(location(c), c.backend);
  const routed = new Map<string, string>(); // location → split name
  const splits = new Map<string, CanarySplit>();
  const backends = new Map<string, CanaryBackend>();
  const orphans: ReadIngress[] = [];
  for (const { read, rules } of canaries) {
    let paired = false;
    for (const c of read.claims) {
      const at = location(c);
      const mainName = owner.get(at);
      const main = mainName === undefined ? undefined : backendOf(mainName);
      if (!main || routed.has(at)) continue;
      const be = canaryBackend(main, read, c.backend, rules.sticky);
      const name = `cy${be.name.slice(3)}`;
      backends.set(be.name, be);
      const affinity = new NginxReader(main.ingress, {}).affinityCookie();
      splits.set(name, { name, main: main.name, canary: be.name, rules, affinity });
      routed.set(at, name);
      paired = true;
    }
    if (!paired) orphans.push(read);
  }
  return {
    served: served.map((r) => rerouted(r, routed)),
    splits: [...splits.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    backends: [...backends.values()],
    orphans,
  };
}

/** `r` with the claims of a split location routed to the split (the first claim of each). */
function rerouted(r: ReadIngress, routed: ReadonlyMap<string, string>): ReadIngress {
  if (!r.claims.some((c) => routed.has(location(c)))) return r;
  return {
    ...r,
    claims: r.claims.map((c) => {
      const split = routed.get(location(c));
      return split === undefined || c.backend === split ? c : { ...c, backend: split };
    }),
  };
}

/**
 * The frontend lines of one split, after the route lookup: `txn.canary` is set by the first
 * rule that decides (header, then cookie, then weight: `rand(total)` below the weight, so a
 * request goes to the canary with probability weight/total), then the route names the backend.
 */
export function canaryLines(s: CanarySplit): string[] {
  const at = `{ var(txn.route) -m str ${s.name} }`;
  const open = `${at} !{ var(txn.canary) -m found }`;
  const set = (v: 'y' | 'n', cond: string) =>
    `http-request set-var(txn.canary) str(${v}) if ${cond}`;
  const r = s.rules;
  const lines: string[] = [];
  // ingress-nginx's balancer: a client the mainline's affinity cookie names stays on it; with
  // sticky, one the canary's cookie names stays on the canary; then the traffic-shaping rules
  if (s.affinity !== undefined) {
    const ck = `req.cook(${s.affinity})`;
    lines.push(set('n', `${at} { ${ck} -m reg ^srv[0-9]+$ }`));
    if (r.sticky) lines.push(set('y', `${open} { ${ck} -m beg ${CANARY_COOKIE_PREFIX} }`));
  }
  if (r.header !== undefined) {
    const hdr = `req.fhdr(${r.header},1)`;
    if (r.headerValue !== undefined)
      lines.push(set('y', `${open} { ${hdr} -m str -- '${r.headerValue}' }`));
    else if (r.headerPattern !== undefined)
      lines.push(set('y', `${open} { ${hdr} -m reg -- '${r.headerPattern}' }`));
    else
      lines.push(
        set('y', `${open} { ${hdr} -m str always }`),
        set('n', `${open} { ${hdr} -m str never }`),
      );
  }
  if (r.cookie !== undefined)
    lines.push(
      set('y', `${open} { req.cook(${r.cookie}) -m str always }`),
      set('n', `${open} { req.cook(${r.cookie}) -m str never }`),
    );
  if (r.weight >= r.total) lines.push(set('y', open));
  else if (r.weight > 0) lines.push(set('y', `${open} { rand(${r.total}) lt ${r.weight} }`));
  lines.push(
    `http-request set-var(txn.route) str(${s.canary}) if ${at} { var(txn.canary) -m str y }`,
    `http-request set-var(txn.route) str(${s.main}) if ${at}`,
  );
  return lines;
}
