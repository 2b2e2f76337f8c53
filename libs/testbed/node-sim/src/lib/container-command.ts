import { join } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import type { ImageRule } from './image-table.js';
import { expandVars } from './pod-env.js';
import type { PathMapper } from './pod-volumes.js';

/** How one container is played: the `haptic` arguments to run, or no process of its own. */
export interface LaunchPlan {
  readonly runner: ImageRule['runner'];
  /** Arguments after `haptic` (after `command` when set); empty when `coveredBy` is set. */
  readonly args: readonly string[];
  /** An executable to run instead of `haptic` (the HAProxy binary for an HAProxy container). */
  readonly command?: string;
  /** The working folder (the container's `workingDir` when it lies in a volume). */
  readonly cwd?: string;
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
  /** Name of a container in the same pod that plays the Dataplane sidecar and starts HAProxy itself. */
  readonly agentContainer?: string;
  /** The HAProxy binary an HAProxy container's `haproxy` command runs. */
  readonly haproxyBin: string;
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

/** Addresses that mean "every address of the host": inside a pod's network namespace, the pod's. */
const ANY_ADDRESS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The args with the pod's address as `--address`: added when missing, and put in place of a
 * bind-all address, since a process binding all addresses of its pod binds the pod's own address
 * (here every pod shares the host's loopback, so binding all would take the port from every pod).
 */
function withAddress(args: string[], podIP: string): string[] {
  let given = false;
  const out = args.map((a, i) => {
    if (a.startsWith('--address=')) {
      given = true;
      return ANY_ADDRESS.has(a.slice('--address='.length)) ? `--address=${podIP}` : a;
    }
    if (a === '--address') given = true;
    return args[i - 1] === '--address' && ANY_ADDRESS.has(a) ? podIP : a;
  });
  return given ? out : [...out, '--address', podIP];
}

/** The `haptic` subcommand a container runs (its command and args, a leading `haptic` dropped). */
function subcommand(container: Pick<V1Container, 'command' | 'args'>): string | undefined {
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  if (words[0] !== undefined && /(^|\/)haptic(\.js)?$/.test(words[0])) words.shift();
  return words[0];
}

/** True when the container plays the Dataplane sidecar: an agent image, or haptic's image run as `agent`. */
export function playsAgent(container: V1Container, rule: ImageRule | undefined): boolean {
  return rule?.runner === 'agent' || (rule?.runner === 'run' && subcommand(container) === 'agent');
}

/**
 * True when the container plays an agent that starts HAProxy itself: not an agent attached to
 * its pod's HAProxy container (`haptic agent --master-socket`), nor `haptic agent --prepare`.
 */
export function agentSpawnsHaproxy(container: V1Container, rule: ImageRule | undefined): boolean {
  if (!playsAgent(container, rule)) return false;
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  return !words.some((w) => /^--(master-socket|prepare)(=|$)/.test(w));
}

/**
 * The arguments of HAProxy when the container runs it: its command is `haproxy` (a path or not,
 * possibly behind `tini --`), or it has no command and its args are flags. With no command the
 * image's entrypoint runs; the HAProxy images' entrypoints (the official image's
 * docker-entrypoint.sh, haproxytech's, haptic's `tini -- haproxy`) all run `haproxy <args>` when
 * the first arg is a flag. Undefined for anything else (a shell script, `sleep`...).
 */
export function haproxyArgs(
  container: Pick<V1Container, 'command' | 'args'>,
): string[] | undefined {
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  if (container.command === undefined || container.command.length === 0)
    return words[0]?.startsWith('-') === true ? words : undefined;
  let rest = words;
  if (/(^|\/)tini$/.test(rest[0] ?? '')) {
    rest = rest.slice(1);
    if (rest[0] === '--') rest = rest.slice(1);
  }
  return /(^|\/)haproxy$/.test(rest[0] ?? '') ? rest.slice(1) : undefined;
}

/**
 * An HAProxy container run as HAProxy itself: the test's HAProxy binary with the container's
 * arguments (variables expanded, paths in volumes mapped into the pod folder) in its working
 * folder. Where this stops being Kubernetes: the image's own files (`/usr/local/etc/haproxy`) do
 * not exist here, so a path outside every volume is passed as it is; and the process runs as the
 * test's user, not the pod's `runAsUser`.
 */
function haproxyPlan(container: V1Container, args: string[], ctx: LaunchContext): LaunchPlan {
  const mapped = args.map((w) => mapArg(expandVars(w, ctx.env), ctx.mapPath));
  const dir = container.workingDir;
  const cwd = dir === undefined ? ctx.podDir : ctx.mapPath(dir);
  return {
    runner: 'haproxy',
    command: ctx.haproxyBin,
    args: mapped,
    files: {},
    // A workingDir outside every volume is a folder of the image: the pod folder stands in.
    cwd: cwd === dir ? ctx.podDir : cwd,
  };
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
 * nothing when a sibling agent starts HAProxy itself, else HAProxy itself when the container's
 * command runs `haproxy` (see {@link haproxyArgs}), otherwise an agent of its own.
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
      const own = hapticArgs(container, ctx);
      const args = own.length === 0 || own[0]?.startsWith('-') === true ? ['run', ...own] : own;
      if (args[0] === 'agent')
        return { runner: 'agent', args: withAddress(args, ctx.podIP), files: {} };
      return {
        runner: 'run',
        args: args[0] === 'run' ? withAddress(args, ctx.podIP) : args,
        files: {},
      };
    }
    case 'agent': {
      const own = hapticArgs(container, ctx);
      if (own[0] === 'agent')
        return { runner: 'agent', args: withAddress(own, ctx.podIP), files: {} };
      return { runner: 'agent', ...agentArgs(container, ctx) };
    }
    case 'haproxy': {
      if (ctx.agentContainer !== undefined)
        return { runner: 'haproxy', args: [], files: {}, coveredBy: ctx.agentContainer };
      const own = haproxyArgs(container);
      if (own !== undefined) return haproxyPlan(container, own, ctx);
      return { runner: 'haproxy', ...agentArgs({ ...container, ports: [] }, ctx) };
    }
  }
}
