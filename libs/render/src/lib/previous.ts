import type { PreviousDeployment } from './types.js';

/** One server line of a deployed backend. */
export interface PreviousServer {
  readonly name: string;
  readonly address: string;
}

const SECTION =
  /^(global|defaults|frontend|backend|listen|peers|resolvers|userlist|program|cache|http-errors|ring|mailers)\b\s*(\S*)/;

/**
 * Server names and addresses per backend of the deployed haproxy.cfg, so templates can keep a
 * server on the slot it had (fewer reloads). A line-level reading, enough for `server` lines.
 */
export function deployedServers(config: string): Record<string, PreviousServer[]> {
  const backends: Record<string, PreviousServer[]> = {};
  let current: PreviousServer[] | undefined;
  for (const raw of config.split('\n')) {
    const line = raw.trim();
    const section = SECTION.exec(raw);
    if (section) {
      const isBackend = section[1] === 'backend' || section[1] === 'listen';
      current = isBackend && section[2] ? (backends[section[2]] ??= []) : undefined;
      continue;
    }
    const server = /^server\s+(\S+)\s+(\S+)/.exec(line);
    if (current && server) current.push({ name: server[1] ?? '', address: server[2] ?? '' });
  }
  return backends;
}

/** The `previous` template variable. */
export function previousContext(previous: PreviousDeployment | undefined): Record<string, unknown> {
  const config = previous?.haproxyConfig ?? '';
  return {
    haproxy_config: config,
    maps: { ...(previous?.maps ?? {}) },
    backends: Object.fromEntries(
      Object.entries(deployedServers(config)).map(([name, servers]) => [name, { servers }]),
    ),
  };
}
