import { request } from 'node:http';
import { connect } from 'node:tls';
import type { RenderedOutputs } from '#events';

/** One server line of the desired state: upstream index (-1 = empty slot), weight, maintenance. */
export interface DesiredServer {
  readonly name: string;
  readonly up: number;
  readonly weight: number;
  readonly maint: boolean;
}

/** The desired state a pair moves between; rendered per pod (certificate paths are absolute). */
export interface DesiredState {
  readonly app: readonly DesiredServer[];
  /** be_slots uses `balance source`: no dynamic servers, filled through its slots. */
  readonly slots: readonly DesiredServer[];
  readonly hosts: Readonly<Record<string, string>>;
  /** crt-list certificates: storage name -> PEM label (`cn` or `cn.vN`; served for its CN). */
  readonly certs: Readonly<Record<string, string>>;
  readonly extraMap: boolean;
  readonly timeoutClient: string;
  readonly acl: boolean;
  readonly newBackend: boolean;
  readonly newFrontend: boolean;
  readonly maxconn: number;
}

export const INITIAL: DesiredState = {
  app: [
    { name: 's1', up: 0, weight: 10, maint: false },
    { name: 's2', up: 1, weight: 10, maint: false },
  ],
  slots: [
    { name: 'slot1', up: 2, weight: 1, maint: false },
    { name: 'slot2', up: -1, weight: 1, maint: true },
  ],
  hosts: { 'a.example': 'be_app', 'b.example': 'be_slots' },
  certs: { 'one.pem': 'one.example' },
  extraMap: false,
  timeoutClient: '10s',
  acl: false,
  newBackend: false,
  newFrontend: false,
  maxconn: 1000,
};

export interface PodEnv {
  readonly dir: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly http2Port: number;
  /** Upstream i as `host:port`. */
  readonly upstreams: readonly string[];
  readonly pems: Readonly<Record<string, string>>;
}

const serverLine = (s: DesiredServer, ports: readonly string[]) =>
  `  server ${s.name} ${s.up < 0 ? '127.0.0.1:1' : ports[s.up]}${s.weight !== 1 ? ` weight ${s.weight}` : ''}${s.maint ? ' disabled' : ''}`;

/** Renders a desired state for one pod. */
export function render(s: DesiredState, env: PodEnv): RenderedOutputs {
  const d = env.dir;
  const cfg = [
    'global',
    '  log stderr format raw local0 notice',
    `  maxconn ${s.maxconn}`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    `  timeout client ${s.timeoutClient}`,
    '  timeout server 10s',
    'frontend fe',
    `  bind "\${POD_IP}":${env.httpPort}`,
    `  bind "\${POD_IP}":${env.httpsPort} ssl crt ${d}/ssl/default.pem crt-list ${d}/general/certs.crtlist`,
    ...(s.acl ? ['  acl blocked path_beg /blocked', '  http-request deny if blocked'] : []),
    ...(s.extraMap
      ? [`  http-request set-header X-Tier %[req.hdr(host),lower,map(${d}/maps/tiers.map,none)]`]
      : []),
    `  use_backend %[req.hdr(host),lower,map(${d}/maps/hosts.map,be_app)]`,
    ...(s.newFrontend
      ? ['frontend fe2', `  bind "\${POD_IP}":${env.http2Port}`, '  default_backend be_app']
      : []),
    'backend be_app',
    '  balance roundrobin',
    ...s.app.map((x) => serverLine(x, env.upstreams)),
    'backend be_slots',
    '  balance source',
    ...s.slots.map((x) => serverLine(x, env.upstreams)),
    ...(s.newBackend ? ['backend be_new', `  server n1 ${env.upstreams[5]}`] : []),
    '',
  ].join('\n');
  const certs: Record<string, string> = { 'default.pem': env.pems['default.example']! };
  for (const [name, label] of Object.entries(s.certs)) certs[name] = env.pems[label]!;
  return {
    haproxyConfig: cfg,
    maps: {
      'hosts.map': Object.entries(s.hosts)
        .map(([h, b]) => `${h} ${b}\n`)
        .join(''),
      ...(s.extraMap ? { 'tiers.map': 'a.example gold\n' } : {}),
    },
    files: {},
    sslCertificates: certs,
    crtLists: {
      'certs.crtlist': Object.entries(s.certs)
        .map(([name, label]) => `${d}/ssl/${name} ${cnOf(label)}\n`)
        .join(''),
    },
  };
}

/** GET / with a Host header through HAProxy: status and the upstream's name. */
export function httpGet(
  address: string,
  port: number,
  host: string,
  path = '/',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: address, port, path, headers: { host }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.split(' ')[0] ?? '' }));
    })
      .on('error', reject)
      .end();
  });
}

/** The CN HAProxy serves for an SNI name. */
export function servedCn(address: string, port: number, sni: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: address, port, servername: sni, rejectUnauthorized: false }, () => {
      const cn = s.getPeerCertificate().subject?.CN;
      s.end();
      resolve(Array.isArray(cn) ? cn.join(',') : (cn ?? ''));
    });
    s.on('error', reject);
  });
}

/** The CN of a PEM label (`two.example.v2` -> `two.example`). */
export const cnOf = (label: string) => label.replace(/\.v\d+$/, '');
