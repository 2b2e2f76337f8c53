import type { PreviousDeployment } from './types.js';

/** One server line of a deployed backend. */
export interface PreviousServer {
  readonly name: string;
  readonly address: string;
}

/** A section header at a line's start: keyword and the first word after it (same line). */
const SECTION_AT =
  /(global|defaults|frontend|backend|listen|peers|resolvers|userlist|program|cache|http-errors|ring|mailers)\b[^\S\n]*(\S*)/y;
/** A `server` line (after any blanks): its name and address. */
const SERVER_AT = /[^\S\n]*server[^\S\n]+(\S+)[^\S\n]+(\S+)/y;

/**
 * Calls `each` with every backend and listen section's name and its server lines' two words. One
 * pass over the text that copies only those words: at 10,000 backends a copy of every line was
 * most of the time a render spent on the deployed configuration.
 */
function readServers(
  config: string,
  each: (backend: string, server?: { name: string; address: string }) => void,
): void {
  let current: string | undefined;
  for (let at = 0; at < config.length;) {
    const nl = config.indexOf('\n', at);
    const next = nl === -1 ? config.length : nl + 1;
    SECTION_AT.lastIndex = at;
    const section = SECTION_AT.exec(config);
    if (section) {
      const isBackend = section[1] === 'backend' || section[1] === 'listen';
      current = isBackend && section[2] ? section[2] : undefined;
      if (current !== undefined) each(current);
    } else if (current !== undefined) {
      SERVER_AT.lastIndex = at;
      const server = SERVER_AT.exec(config);
      if (server) each(current, { name: server[1] ?? '', address: server[2] ?? '' });
    }
    at = next;
  }
}

/**
 * Server names and addresses per backend of the deployed haproxy.cfg, so templates can keep a
 * server on the slot it had (fewer reloads). A line-level reading, enough for `server` lines.
 */
export function deployedServers(config: string): Record<string, PreviousServer[]> {
  const backends: Record<string, PreviousServer[]> = {};
  readServers(config, (backend, server) => {
    const servers = (backends[backend] ??= []);
    if (server) servers.push(server);
  });
  return backends;
}

/**
 * The deployed backends of one haproxy.cfg, compact: every backend's server lines as `name
 * address` lines of one string (at 10,000 backends an object, an array and two strings per
 * server would be about 6 MiB, kept while the configuration is the deployed one), and a token
 * per backend, equal in two configurations exactly when the backend's server lines are.
 */
class DeployedBackends {
  /** Backend name → its position in `spans` and `tokens`. */
  readonly index = new Map<string, number>();
  /** `name address\n` per server, backend after backend. */
  readonly text: string;
  /** Start and end of each backend's lines in `text`. */
  readonly spans: Int32Array;
  readonly tokens: Float64Array;

  constructor(config: string, last: DeployedBackends | undefined) {
    const lines = new Map<string, string[]>();
    readServers(config, (backend, server) => {
      let list = lines.get(backend);
      if (!list) lines.set(backend, (list = []));
      if (server) list.push(`${server.name} ${server.address}\n`);
    });
    this.spans = new Int32Array(lines.size * 2);
    this.tokens = new Float64Array(lines.size);
    const parts: string[] = [];
    let at = 0;
    for (const [name, list] of lines) {
      const i = this.index.size;
      this.index.set(name, i);
      this.spans[2 * i] = at;
      for (const line of list) at += line.length;
      this.spans[2 * i + 1] = at;
      parts.push(...list);
    }
    this.text = parts.join('');
    for (const [name, i] of this.index) this.tokens[i] = this.tokenFor(name, last);
  }

  /** The server lines of a backend (`name address\n` each). */
  lines(name: string): string | undefined {
    const i = this.index.get(name);
    if (i === undefined) return undefined;
    return this.text.slice(this.spans[2 * i], this.spans[2 * i + 1]);
  }

  /** The last configuration's token when the backend's lines are the same, else a new one. */
  private tokenFor(name: string, last: DeployedBackends | undefined): number {
    const j = last?.index.get(name);
    if (last && j !== undefined && last.lines(name) === this.lines(name))
      return last.tokens[j] ?? ++nextToken;
    return ++nextToken;
  }

  /** The servers of a backend, as `deployedServers` gives them (a new array each time). */
  servers(name: string): PreviousServer[] | undefined {
    const text = this.lines(name);
    if (text === undefined) return undefined;
    const servers: PreviousServer[] = [];
    for (let at = 0; at < text.length;) {
      const space = text.indexOf(' ', at);
      const nl = text.indexOf('\n', space);
      servers.push({ name: text.slice(at, space), address: text.slice(space + 1, nl) });
      at = nl + 1;
    }
    return servers;
  }
}

let nextToken = 0;
/** The deployed backends read last: a backend whose lines did not change keeps its token. */
let lastBackends: DeployedBackends | undefined;

/** The `previous.backends` value of each context, for its signatures. */
const BACKENDS_OF = new WeakMap<object, DeployedBackends>();

/**
 * `previous.backends` over the compact form: `backends[name]` is `{ servers }`, made when read.
 * A proxy, so templates and typed code read it as the plain object it stands for.
 */
function backendsView(backends: DeployedBackends): Record<string, unknown> {
  const entry = (name: string): { servers: PreviousServer[] } | undefined => {
    const servers = backends.servers(name);
    return servers && { servers };
  };
  const view = new Proxy(Object.create(null) as Record<string, unknown>, {
    get: (_, prop) => (typeof prop === 'string' ? entry(prop) : undefined),
    has: (_, prop) => typeof prop === 'string' && backends.index.has(prop),
    ownKeys: () => [...backends.index.keys()],
    getOwnPropertyDescriptor: (_, prop) => {
      const value = typeof prop === 'string' ? entry(prop) : undefined;
      return value && { value, writable: false, enumerable: true, configurable: true };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
  BACKENDS_OF.set(view, backends);
  return view;
}

/**
 * The signature of `previous.backends[name]` when `backends` is a context's `previous.backends`:
 * a number, the same for two deployed configurations exactly when that backend's server lines
 * are the same (0 when it has none); undefined for any other value.
 */
export function deployedBackendToken(backends: unknown, name: string): number | undefined {
  const compact =
    backends !== null && typeof backends === 'object' ? BACKENDS_OF.get(backends) : undefined;
  if (!compact) return undefined;
  const i = compact.index.get(name);
  return i === undefined ? 0 : compact.tokens[i];
}

/** The `previous` template variable. */
export function previousContext(previous: PreviousDeployment | undefined): Record<string, unknown> {
  const config = previous?.haproxyConfig ?? '';
  const backends = new DeployedBackends(config, lastBackends);
  if (previous) lastBackends = backends;
  return {
    haproxy_config: config,
    maps: { ...(previous?.maps ?? {}) },
    backends: backendsView(backends),
  };
}
