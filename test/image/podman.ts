import { spawn, spawnSync } from 'node:child_process';

/** The images `npm run image` built, handed over by scripts/test-image.mjs. */
export function builtImages(): { controller: string; haproxy: string } {
  const controller = process.env['HAPTIC_IMAGE_CONTROLLER'];
  const haproxy = process.env['HAPTIC_IMAGE_HAPROXY'];
  if (!controller || !haproxy)
    throw new Error(
      'HAPTIC_IMAGE_CONTROLLER and HAPTIC_IMAGE_HAPROXY are unset: run `npm run test:image` ' +
        '(it builds the images first), as root with podman installed',
    );
  return { controller, haproxy };
}

/**
 * How the chart runs the containers: non-root, read-only root, a tmpfs /tmp, a memory limit. runc
 * because crun refuses hybrid cgroup layouts; ulimits at or below a small machine's.
 */
export const restricted = [
  '--runtime',
  'runc',
  '--pull',
  'never',
  '--user',
  '10001:10001',
  '--read-only',
  '--tmpfs',
  '/tmp:rw,size=64m,mode=1777',
  '--memory',
  '256m',
  '--ulimit',
  'nofile=1024:1024',
  '--ulimit',
  'nproc=1024:1024',
  '--network',
  'host',
];

export interface PodmanResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs podman synchronously (outputs kept). */
export function podman(args: string[], timeoutMs = 120_000): PodmanResult {
  const r = spawnSync('podman', args, { encoding: 'utf8', timeout: timeoutMs });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `podman run --rm` of a restricted container to completion. */
export function runOnce(image: string, args: string[], extra: string[] = []): PodmanResult {
  return podman(['run', '--rm', ...restricted, ...extra, image, ...args]);
}

/** Starts a restricted container in the background; returns its name. */
export function start(name: string, image: string, args: string[], extra: string[] = []): string {
  podman(['rm', '--force', '--time', '0', name]);
  const r = podman(['run', '--detach', '--name', name, ...restricted, ...extra, image, ...args]);
  if (r.status !== 0) throw new Error(`podman run ${name}: ${r.stderr}`);
  return name;
}

/**
 * Stops a container with SIGTERM (30 s grace, as a loaded machine may need) and returns its exit code
 * and logs. Asynchronous: the test's kube-sim runs in this process and must go on answering while
 * the controller shuts down (it releases its lease and writes status then, as against a real API
 * server); a synchronous wait would stall it and turn a clean stop into a SIGKILL.
 */
export async function stop(name: string): Promise<{ code: number; logs: string }> {
  await new Promise<void>((resolve, reject) => {
    const p = spawn('podman', ['stop', '--time', '30', name], { stdio: 'ignore' });
    p.once('error', reject);
    p.once('exit', () => resolve());
  });
  const code = Number(podman(['inspect', '--format', '{{.State.ExitCode}}', name]).stdout.trim());
  const logs = podman(['logs', name]);
  podman(['rm', '--force', '--time', '0', name]);
  return { code, logs: logs.stdout + logs.stderr };
}

/** The command lines of the container's processes, by pid. */
export function processes(name: string): Map<number, string> {
  const r = podman([
    'exec',
    name,
    'sh',
    '-c',
    'for p in /proc/[0-9]*; do printf "%s " "${p#/proc/}"; tr "\\0" " " < "$p/cmdline"; echo; done',
  ]);
  if (r.status !== 0) throw new Error(`podman exec ${name}: ${r.stderr}`);
  const out = new Map<number, string>();
  for (const line of r.stdout.split('\n')) {
    const m = /^(\d+) (.*)$/.exec(line.trim());
    if (m && m[2] !== '') out.set(Number(m[1]), m[2]!.trim());
  }
  return out;
}

/** Processes of the container in the zombie state (exited, never reaped). */
export function zombies(name: string): string[] {
  const r = podman(['exec', name, 'sh', '-c', 'grep -l "^State:.*Z" /proc/[0-9]*/status || true']);
  return r.stdout.split('\n').filter((l) => l !== '');
}
