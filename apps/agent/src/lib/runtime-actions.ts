import { cliCommand, type RuntimeSocket } from '#haproxy-config';
import { ApiError } from '../agent.errors.js';

/** `X-Runtime-Actions` action → runtime command (args: backend, server, values...). */
const ACTIONS: Readonly<Record<string, (a: readonly string[]) => string>> = {
  SetServerAddr: (a) =>
    cliCommand(
      'set',
      'server',
      `${a[0]}/${a[1]}`,
      'addr',
      a[2] ?? '',
      ...(a[3] ? ['port', a[3]] : []),
    ),
  SetServerWeight: (a) => cliCommand('set', 'server', `${a[0]}/${a[1]}`, 'weight', a[2] ?? ''),
  SetServerState: (a) => cliCommand('set', 'server', `${a[0]}/${a[1]}`, 'state', a[2] ?? ''),
  SetServerHealth: (a) => cliCommand('set', 'server', `${a[0]}/${a[1]}`, 'health', a[2] ?? ''),
  SetServerCheckPort: (a) =>
    cliCommand('set', 'server', `${a[0]}/${a[1]}`, 'check-port', a[2] ?? ''),
  EnableAgentCheck: (a) => cliCommand('enable', 'agent', `${a[0]}/${a[1]}`),
  DisableAgentCheck: (a) => cliCommand('disable', 'agent', `${a[0]}/${a[1]}`),
  SetServerAgentAddr: (a) =>
    cliCommand('set', 'server', `${a[0]}/${a[1]}`, 'agent-addr', a[2] ?? ''),
  SetServerAgentSend: (a) =>
    cliCommand('set', 'server', `${a[0]}/${a[1]}`, 'agent-send', a[2] ?? ''),
  SetFrontendMaxConn: (a) => cliCommand('set', 'maxconn', 'frontend', a[0] ?? '', a[1] ?? ''),
};

/** Applies `;`-separated runtime actions with space-separated arguments (the X-Runtime-Actions header). */
export async function applyRuntimeActions(socket: RuntimeSocket, header: string): Promise<void> {
  for (const raw of header.split(';')) {
    const [name, ...args] = raw.trim().split(/\s+/);
    if (!name) continue;
    const build = ACTIONS[name];
    if (!build) throw new ApiError(400, `unknown runtime action ${name}`);
    await socket.expect(build(args), [/^no need to change/, /changed from/]);
  }
}
