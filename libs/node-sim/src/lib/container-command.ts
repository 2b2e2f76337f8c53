import { join } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import type { ImageRule } from './image-table.js';
import { expandVars } from './pod-env.js';
import type { PathMapper } from './pod-volumes.js';

/** How one container is played: the `haptic` arguments to run, or no process of its own. */
export interface LaunchPlan {
  readonly runner: ImageRule['runner'];
  /** Arguments after `haptic`; empty when `coveredBy` is set. */
  readonly args: readonly string[];
  /** Files to write before the start (absolute path → content), e.g. a password file. */
  readonly files: Readonly<Record<string, string>>;
  /** The sibling container whose process plays this one (an HAProxy container run by the agent). */
  readonly coveredBy?: string;
}

/** What the plan needs to know of the pod around the container. */
export interface LaunchContext {
  readonly podIP: string;
  readonly podDir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly mapPath: PathMapper;
  /** Name of a container in the same pod that plays the Dataplane sidecar, if any. */
  readonly agentContainer?: string;
}

/** Default Dataplane API port of the sidecar. */
export const DATAPLANE_PORT = 5555;

function mapArg(arg: string, mapPath: PathMapper): string {
  if (arg.startsWith('/')) return mapPath(arg);
  const m = /^(--?[^=]+=)(\/.*)$/.exec(arg);
  return m?.[1] !== undefined && m[2] !== undefined ? m[1] + mapPath(m[2]) : arg;
}

/** The container's command and args as `haptic` arguments: variables expanded, paths mapped, `haptic` dropped. */
export function hapticArgs(container: V1Container, ctx: LaunchContext): string[] {
  const words = [...(container.command ?? []), ...(container.args ?? [])].map((w) =>
    mapArg(expandVars(w, ctx.env), ctx.mapPath),
  );
  if (words[0] !== undefined && /(^|\/)haptic(\.js)?$/.test(words[0])) words.shift();
  return words;
}

function withAddress(args: string[], podIP: string): string[] {
  return args.some((a) => a === '--address' || a.startsWith('--address='))
    ? args
    : [...args, '--address', podIP];
}

function agentArgs(
  container: V1Container,
  ctx: LaunchContext,
): { args: string[]; files: Record<string, string> } {
  const ports = container.ports ?? [];
  const port =
    (ports.find((p) => p.name === 'dataplane') ?? ports[0])?.containerPort ?? DATAPLANE_PORT;
  const mapped = ctx.mapPath('/etc/haproxy');
  const configDir = mapped === '/etc/haproxy' ? join(ctx.podDir, 'haproxy') : mapped;
  const args = ['agent', '--address', ctx.podIP, '--port', String(port), '--config-dir', configDir];
  const files: Record<string, string> = {};
  const user = ctx.env['DATAPLANE_USERNAME'];
  const password = ctx.env['DATAPLANE_PASSWORD'];
  if (user !== undefined && password !== undefined) {
    const passwordFile = join(ctx.podDir, 'secrets', `${container.name}.password`);
    files[passwordFile] = password;
    args.push('--username', user, '--password-file', passwordFile);
  }
  return { args, files };
}

/**
 * Turns a container into what node-sim runs, by its image-table rule:
 * echo → `haptic echo --address <pod IP>` (plus the rule's profile; the port comes from the
 * container's HTTP_PORT, as upstream); run → `haptic` with the container's own command/args
 * (`run` when they are empty or start with a flag); agent → the container's args when they already
 * are `agent ...`, otherwise `agent --address --port --config-dir` built from the pod (the shared
 * `/etc/haproxy` mount, the `dataplane` port, DATAPLANE_USERNAME/DATAPLANE_PASSWORD); haproxy →
 * nothing when a sibling agent runs HAProxy, otherwise an agent of its own.
 */
export function planLaunch(
  container: V1Container,
  rule: ImageRule,
  ctx: LaunchContext,
): LaunchPlan {
  switch (rule.runner) {
    case 'echo':
      return {
        runner: 'echo',
        args: [
          'echo',
          '--address',
          ctx.podIP,
          ...(rule.profile === undefined ? [] : ['--profile', rule.profile]),
        ],
        files: {},
      };
    case 'run': {
      const args = hapticArgs(container, ctx);
      return {
        runner: 'run',
        args: args.length === 0 || args[0]?.startsWith('-') === true ? ['run', ...args] : args,
        files: {},
      };
    }
    case 'agent': {
      const own = hapticArgs(container, ctx);
      if (own[0] === 'agent')
        return { runner: 'agent', args: withAddress(own, ctx.podIP), files: {} };
      return { runner: 'agent', ...agentArgs(container, ctx) };
    }
    case 'haproxy':
      if (ctx.agentContainer !== undefined)
        return { runner: 'haproxy', args: [], files: {}, coveredBy: ctx.agentContainer };
      return { runner: 'haproxy', ...agentArgs({ ...container, ports: [] }, ctx) };
  }
}
