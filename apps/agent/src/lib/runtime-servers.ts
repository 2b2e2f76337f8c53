import {
  adminState,
  backendServers,
  cliCommand,
  joinAddress,
  operationalState,
  parseServersState,
  setServerLine,
  type RuntimeSocket,
  type ServerStateRow,
} from '#haproxy-config';
import { ApiError } from '../agent.errors.js';
import type { ConfigFile } from './config-file.js';

/** `show servers state <backend>`, or the API's 404 for an unknown backend. */
export async function serverRows(admin: RuntimeSocket, backend: string): Promise<ServerStateRow[]> {
  const reply = await admin.send(cliCommand('show', 'servers', 'state', backend));
  if (/Can't find backend/i.test(reply)) throw new ApiError(404, `backend ${backend} not found`);
  return parseServersState(reply);
}

/** One row as the `runtime_server` schema. */
export function runtimeServerView(r: ServerStateRow): Record<string, unknown> {
  const num = (v: string | undefined) =>
    v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  const view: Record<string, unknown> = {
    id: r.srv_id ?? '',
    name: r.srv_name ?? '',
    address: r.srv_addr ?? '',
    admin_state: adminState(r.srv_admin_state),
    operational_state: operationalState(r.srv_op_state),
    backend_name: r.be_name ?? '',
  };
  const port = num(r.srv_port);
  if (port !== undefined && port > 0) view.port = port;
  for (const [k, col] of [
    ['backend_id', 'be_id'],
    ['uweight', 'srv_uweight'],
    ['iweight', 'srv_iweight'],
  ] as const) {
    const v = num(r[col]);
    if (v !== undefined) view[k] = v;
  }
  return view;
}

/** The current `runtime_server` of backend/server, or 404. */
export async function getRuntimeServer(
  admin: RuntimeSocket,
  backend: string,
  name: string,
): Promise<Record<string, unknown>> {
  const row = (await serverRows(admin, backend)).find((r) => r.srv_name === name);
  if (!row) throw new ApiError(404, `server ${name} not found in backend ${backend}`);
  return runtimeServerView(row);
}

/** Maps HAProxy's error texts for server commands to API statuses. */
export function serverError(reply: string): ApiError {
  const text = reply.trim();
  if (/No such (backend|server)|not found/i.test(text)) return new ApiError(404, text);
  if (/Already exists/i.test(text)) return new ApiError(409, text);
  return new ApiError(400, text || 'empty reply from HAProxy');
}

/** Sends a server command; blank (or a known informational) reply is success. */
export async function serverCommand(admin: RuntimeSocket, ...words: string[]): Promise<string> {
  const reply = await admin.send(cliCommand(...words));
  if (
    reply.trim() === '' ||
    /^(no need to change|New server registered|Server deleted)/m.test(reply) ||
    /changed from/.test(reply)
  ) {
    return reply;
  }
  throw serverError(reply);
}

/** The server's change as `persistServer` takes it. */
export interface ServerChange {
  readonly address?: string;
  readonly port?: number;
  readonly maint?: boolean;
  readonly weight?: number;
  readonly remove?: boolean;
  readonly params?: readonly string[];
}

/**
 * Rewrites the server's line in haproxy.cfg (keeping the version) so a reload keeps a runtime
 * change. The edit is queued: it touches only the backend's section and is written with the
 * other runtime changes of the same turn, after the request has answered.
 */
export function persistServer(
  config: ConfigFile,
  backend: string,
  name: string,
  change: ServerChange,
): void {
  config.editSection(backend, (section) => serverEdit(section, backend, name, change));
}

/** A backend section's text with the server's line changed, added or removed. */
export function serverEdit(
  text: string,
  backend: string,
  name: string,
  change: ServerChange,
): string {
  const current = backendServers(text, backend)?.find((s) => s.name === name);
  let line: string | undefined;
  if (!change.remove) {
    if (!current && change.address === undefined) return text; // e.g. a server-template slot: nothing to write
    let params = [...(current?.params ?? change.params ?? [])];
    if (change.maint === true && !params.includes('disabled')) params.push('disabled');
    if (change.maint === false) params = params.filter((p) => p !== 'disabled');
    if (change.weight !== undefined) {
      const i = params.indexOf('weight');
      if (i >= 0) params.splice(i, 2);
      params.push('weight', String(change.weight));
    }
    const address = joinAddress(
      change.address ?? current?.address ?? '',
      change.port ?? current?.port,
    );
    line = ['server', name, address, ...params].join(' ');
  }
  return setServerLine(text, backend, name, line) ?? text;
}
