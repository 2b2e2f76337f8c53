import { HAZARDS, type Hazard } from './hazards.js';
import { ROUTE_TAG } from './library.js';
import {
  authSecret,
  b64,
  caSecret,
  ingress,
  NS,
  pemData,
  service,
  slice,
  tlsSecret,
  type Backend,
  type Obj,
} from './objects.js';
import type { Pki } from './pki.js';

/**
 * One case of the corpus: the hostile objects (the first is the one carrying the hazard, the rest
 * are what it refers to), and the harmless twin — the same objects with the hazard left out.
 * "Rendered safely" means the outputs of `objects` differ from those of `twin` only in value
 * tokens.
 */
export interface HostileCase {
  readonly id: string;
  readonly field: string;
  readonly hazard: string;
  readonly objects: readonly Obj[];
  readonly twin: readonly Obj[];
  /**
   * The text the hazard adds to a value, as HAProxy must read it: every word of the outputs that
   * differs from the twin's must read (by HAProxy's rules for its place) as the twin's word with
   * one of these inserted, and nothing live (`judgeMeaning`). Empty: no word may differ.
   */
  readonly literal: readonly string[];
}

/** What a field builder gets: the case number, the value (hazard inserted or not). */
interface Build {
  readonly i: number;
  /** `ins('ab')` is `a<hazard>b` for the hostile object and `ab` for its twin. */
  readonly ins: (text: string) => string;
  readonly pki: Pki;
  readonly backend: Backend;
}

const host = (i: number) => `h${i}.example.com`;
const name = (i: number) => `hostile-${i}`;
const PFX = 'haproxy-haptic.org/';

/** Splits a text after its first character and puts `h` there. */
const inserter =
  (h: string | undefined) =>
  (text: string): string =>
    h === undefined ? text : `${text.slice(0, 1)}${h}${text.slice(1)}`;

const annotated = (b: Build, annotations: Record<string, string>): Obj[] => [
  ingress({ name: name(b.i), host: host(b.i), annotations }),
];

/** Every field the corpus attacks, with how the hazard gets there. */
export const FIELDS: Readonly<Record<string, (b: Build) => Obj[]>> = {
  'ingress.host': (b) => [ingress({ name: name(b.i), host: b.ins(`h${b.i}x.example.com`) })],
  'ingress.path': (b) => [ingress({ name: name(b.i), host: host(b.i), path: b.ins('/pq') })],
  'ingress.pathType': (b) => [
    ingress({ name: name(b.i), host: host(b.i), pathType: b.ins('Prefix') }),
  ],
  'ingress.tls.hosts': (b) => [
    ingress({
      name: name(b.i),
      host: host(b.i),
      tls: [{ hosts: [b.ins(`h${b.i}.example.com`)], secretName: 'tls-good' }],
    }),
  ],
  'ingress.metadata.name': (b) => [
    ingress({
      name: b.ins(`name-${b.i}`),
      host: host(b.i),
      annotations: { [`${PFX}balance`]: 'leastconn' },
    }),
  ],
  'ingress.metadata.namespace': (b) => {
    const ns = b.ins(`ns${b.i}`);
    return [
      ingress({ ns, name: name(b.i), host: host(b.i) }),
      service(ns, 'echo'),
      slice(ns, 'echo', b.backend),
    ];
  },
  'service.name': (b) => {
    const svc = b.ins(`svc-${b.i}`);
    return [
      ingress({ name: name(b.i), host: host(b.i), service: svc }),
      service(NS, svc),
      slice(NS, svc, b.backend, { name: `svc-${b.i}-1` }),
    ];
  },
  'service.port.name': (b) => {
    const port = b.ins('hp');
    return [
      ingress({ name: name(b.i), host: host(b.i), service: `svc-${b.i}`, port: { name: port } }),
      service(NS, `svc-${b.i}`, port),
      slice(NS, `svc-${b.i}`, b.backend, { portName: port }),
    ];
  },
  'endpointslice.address': (b) => [
    slice(NS, `svc-${b.i}`, b.backend, { address: b.ins(b.backend.ip) }),
    ingress({ name: name(b.i), host: host(b.i), service: `svc-${b.i}` }),
    service(NS, `svc-${b.i}`),
  ],
  'secret.name (tls)': (b) => {
    const secret = b.ins(`tls-${b.i}`);
    return [
      tlsSecret(NS, secret, pemData(b.pki.other.crt, b.pki.other.key)),
      ingress({
        name: name(b.i),
        host: host(b.i),
        tls: [{ hosts: [host(b.i)], secretName: secret }],
      }),
    ];
  },
  'secret.name (auth)': (b) => {
    const secret = b.ins(`auth-${b.i}`);
    return [...annotated(b, { [`${PFX}auth-secret`]: secret }), authSecret(NS, secret)];
  },
  'secret.name (ca)': (b) => {
    const secret = b.ins(`ca-${b.i}`);
    return [
      ...annotated(b, { [`${PFX}backend-tls`]: 'true', [`${PFX}backend-tls-ca-secret`]: secret }),
      caSecret(NS, secret, b.pki.good.crt),
    ];
  },
  'secret.data.auth': (b) => [
    authSecret(NS, `auth-${b.i}`, b.ins('alice:$6$hostile1$GorxgWrUb2JNBHyAV2h')),
    ...annotated(b, { [`${PFX}auth-secret`]: `auth-${b.i}` }),
  ],
  'annotation key': (b) => annotated(b, { [`${PFX}${b.ins('timeout-server')}`]: '30s' }),
  'annotation request-headers (value)': (b) =>
    annotated(b, { [`${PFX}request-headers`]: `X-Test: ${b.ins('ab')}` }),
  // Through the operator's bare `{{ }}` (library.ts), not a typed filter.
  'annotation route-tag (bare template)': (b) => annotated(b, { [ROUTE_TAG]: b.ins('ok') }),
  'annotation request-headers (name)': (b) =>
    annotated(b, { [`${PFX}request-headers`]: `${b.ins('X-Test')}: ok` }),
  'annotation response-headers (value)': (b) =>
    annotated(b, { [`${PFX}response-headers`]: `X-Resp: ${b.ins('ab')}` }),
  'annotation redirect-to': (b) =>
    annotated(b, { [`${PFX}redirect-to`]: `https://${b.ins('rx')}.example.com/p?q=1` }),
  'annotation auth-realm': (b) => [
    ...annotated(b, {
      [`${PFX}auth-secret`]: `auth-${b.i}`,
      [`${PFX}auth-realm`]: b.ins('Realm'),
    }),
    authSecret(NS, `auth-${b.i}`),
  ],
  'annotation timeout-server': (b) => annotated(b, { [`${PFX}timeout-server`]: b.ins('30s') }),
  'annotation allowlist-source-range': (b) =>
    annotated(b, { [`${PFX}allowlist-source-range`]: `10.0.0.0/8,${b.ins('10.1.0.0/16')}` }),
  'annotation session-cookie-name': (b) =>
    annotated(b, {
      [`${PFX}affinity`]: 'cookie',
      [`${PFX}session-cookie-name`]: b.ins('COOKIE'),
    }),
  'annotation backend-tls-sni': (b) =>
    annotated(b, {
      [`${PFX}backend-tls`]: 'true',
      [`${PFX}backend-tls-sni`]: b.ins('sni.example.com'),
    }),
  'annotation balance': (b) => annotated(b, { [`${PFX}balance`]: b.ins('roundrobin') }),
  'annotation rate-limit-rps': (b) => annotated(b, { [`${PFX}rate-limit-rps`]: b.ins('10') }),
};

/**
 * Besides the hazard as written, what a field's value may become by a documented transform of
 * the library (each named with its reason); no other reading of a differing word is accepted.
 */
const FIELD_TRANSFORMS: Readonly<Record<string, (hazard: string) => string[]>> = {};

/** Invalid certificates (and valid ones with hostile subject fields) in a TLS Secret. */
function certificateCases(pki: Pki, start: number): HostileCase[] {
  const { good, other } = pki;
  const truncated = good.crt.slice(0, Math.floor(good.crt.length / 2));
  const der = Buffer.from(good.crt.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const variants: [string, Record<string, string>][] = [
    ['not-pem', { 'tls.crt': b64('not a certificate'), 'tls.key': b64('no key') }],
    ['truncated', pemData(truncated, good.key)],
    ['der-not-pem', { 'tls.crt': der.toString('base64'), 'tls.key': b64(good.key) }],
    ['key-missing', { 'tls.crt': b64(good.crt) }],
    ['cert-missing', { 'tls.key': b64(good.key) }],
    ['key-mismatch', pemData(good.crt, other.key)],
    ['lines-after-pem', pemData(`${good.crt}lua-load /tmp/x.lua\nbackend evil\n`, good.key)],
    ['nul-in-pem', pemData(good.crt.replace('\n', '\0\n'), good.key)],
    ['key-in-crt', pemData(good.key, good.key)],
    ['empty', { 'tls.crt': '', 'tls.key': '' }],
    ['not-base64', { 'tls.crt': '!!!not base64!!!', 'tls.key': '%%%' }],
    ['huge-chain', pemData(good.crt.repeat(300), good.key)],
    ...pki.hostileFields.map(({ id, pair }): [string, Record<string, string>] => [
      id,
      pemData(pair.crt, pair.key),
    ]),
  ];
  return variants.map(([id, data], k) => {
    const i = start + k;
    const ing = ingress({
      name: name(i),
      host: host(i),
      tls: [{ hosts: [host(i)], secretName: `tls-${i}` }],
    });
    return {
      id: `certificate/${id}`,
      field: 'certificate',
      hazard: id,
      objects: [tlsSecret(NS, `tls-${i}`, data), ing],
      twin: [tlsSecret(NS, `tls-${i}`, pemData(other.crt, other.key)), ing],
      literal: [],
    };
  });
}

/** Deeply nested and huge objects: they must neither crash nor slow the render unboundedly. */
function sizeCases(start: number): HostileCase[] {
  let nested: Record<string, unknown> = { leaf: 'x' };
  for (let d = 0; d < 2000; d++) nested = { n: nested };
  const manyRules = (i: number) => {
    const base = ingress({ name: name(i), host: host(i) });
    const spec = base['spec'] as { rules: { host: string }[] };
    const rules = Array.from({ length: 2000 }, (_, r) => ({
      ...spec.rules[0],
      host: `r${r}.${host(i)}`,
    }));
    return { ...base, spec: { ...spec, rules } };
  };
  // the hazard, what it adds to the one value it changes (none: no word may differ)
  const cases: [string, (i: number, hazard: boolean) => Obj[], string[]][] = [
    [
      'deeply-nested-spec',
      (i, h) => [
        ingress({ name: name(i), host: host(i), extraSpec: h ? { hostileExtra: nested } : {} }),
      ],
      [],
    ],
    // The twin is the same object: the hazard is the size itself (no crash, bounded time).
    ['two-thousand-rules', (i) => [manyRules(i)], []],
    [
      'five-thousand-annotations',
      (i, h) => [
        ingress({
          name: name(i),
          host: host(i),
          annotations: h
            ? Object.fromEntries(Array.from({ length: 5000 }, (_, k) => [`example.com/a${k}`, 'v']))
            : { 'example.com/a0': 'v' },
        }),
      ],
      [],
    ],
    [
      'header-value-200k',
      (i, h) =>
        annotated({ i } as Build, {
          [`${PFX}request-headers`]: `X-Big: ${h ? 'v'.repeat(200_000) : 'v'}`,
        }),
      ['v'.repeat(199_999)],
    ],
    [
      'thousand-header-lines',
      (i) =>
        annotated({ i } as Build, {
          [`${PFX}request-headers`]: Array.from({ length: 1000 }, (_, k) => `X-H${k}: v`).join(
            '\n',
          ),
        }),
      [],
    ],
  ];
  return cases.map(([id, make, literal], k) => ({
    id: `size/${id}`,
    field: 'object size',
    hazard: id,
    objects: make(start + k, true),
    twin: make(start + k, false),
    literal,
  }));
}

/** The whole corpus: every field × every hazard, invalid certificates, huge objects. */
export function buildCorpus(pki: Pki, backend: Backend): HostileCase[] {
  const cases: HostileCase[] = [];
  let i = 1;
  for (const [field, build] of Object.entries(FIELDS)) {
    for (const hazard of HAZARDS) {
      const n = i++;
      cases.push({
        id: `${field}/${hazard.id}`,
        field,
        hazard: hazard.id,
        objects: build({ i: n, ins: inserter(hazard.text), pki, backend }),
        twin: build({ i: n, ins: inserter(undefined), pki, backend }),
        literal: [hazard.text, ...(FIELD_TRANSFORMS[field]?.(hazard.text) ?? [])],
      });
    }
  }
  cases.push(...certificateCases(pki, i));
  cases.push(...sizeCases(i + 100));
  return cases;
}

/** Every case's hazard (for the coverage table). */
export function hazardOf(c: HostileCase): Hazard | undefined {
  return HAZARDS.find((h) => h.id === c.hazard);
}

/** Every n-th case plus every case of the given fields: the sample `npm test` runs. */
export function sampleOf(
  cases: readonly HostileCase[],
  every: number,
  always: readonly string[] = [],
): HostileCase[] {
  return cases.filter((c, k) => k % every === 0 || always.includes(c.field));
}
