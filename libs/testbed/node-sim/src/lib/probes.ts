import { execFile } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { V1ContainerPort, V1Probe } from '@kubernetes/client-node';
import type { PathMapper } from './pod-volumes.js';

/** Where a probe runs: the pod address, the container's named ports, and for exec its environment. */
export interface ProbeTarget {
  readonly podIP: string;
  readonly ports: readonly V1ContainerPort[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly mapPath: PathMapper;
}

function resolvePort(
  port: number | string | undefined,
  ports: readonly V1ContainerPort[],
): number | undefined {
  if (typeof port === 'number') return port;
  if (port === undefined) return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  return ports.find((p) => p.name === port)?.containerPort;
}

function httpProbe(probe: V1Probe, target: ProbeTarget, timeoutMs: number): Promise<boolean> {
  const get = probe.httpGet!;
  const port = resolvePort(get.port, target.ports);
  if (port === undefined) return Promise.resolve(false);
  const headers: Record<string, string> = { 'User-Agent': 'kube-probe/node-sim', Accept: '*/*' };
  for (const h of get.httpHeaders ?? []) headers[h.name] = h.value;
  const secure = get.scheme === 'HTTPS';
  const options = {
    host: get.host ?? target.podIP,
    port,
    path: get.path ?? '/',
    headers,
    timeout: timeoutMs,
    agent: false,
  };
  return new Promise((resolve) => {
    const onResponse = (res: http.IncomingMessage): void => {
      res.resume();
      const code = res.statusCode ?? 0;
      resolve(code >= 200 && code < 400);
    };
    // A kubelet does not verify the certificate of an HTTPS probe either.
    const req = secure
      ? https.get({ ...options, rejectUnauthorized: false }, onResponse)
      : http.get(options, onResponse);
    req.on('timeout', () => req.destroy(new Error('probe timeout')));
    req.on('error', () => resolve(false));
  });
}

function tcpProbe(probe: V1Probe, target: ProbeTarget, timeoutMs: number): Promise<boolean> {
  const port = resolvePort(probe.tcpSocket!.port, target.ports);
  if (port === undefined) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = net.connect({
      host: probe.tcpSocket!.host ?? target.podIP,
      port,
      timeout: timeoutMs,
    });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

function execProbe(probe: V1Probe, target: ProbeTarget, timeoutMs: number): Promise<boolean> {
  const [command, ...args] = (probe.exec!.command ?? []).map((w) =>
    w.startsWith('/') && w !== '/bin/sh' ? target.mapPath(w) : w,
  );
  if (command === undefined) return Promise.resolve(false);
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: target.cwd, env: { ...target.env }, timeout: timeoutMs },
      (err) => resolve(err === null),
    );
  });
}

/** Runs a probe once: httpGet (2xx/3xx), tcpSocket (connects) or exec (exit 0, paths mapped into the pod folder). */
export function runProbe(probe: V1Probe, target: ProbeTarget): Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.httpGet !== undefined) return httpProbe(probe, target, timeoutMs);
  if (probe.tcpSocket !== undefined) return tcpProbe(probe, target, timeoutMs);
  if (probe.exec !== undefined) return execProbe(probe, target, timeoutMs);
  // gRPC probes are not played; a probe node-sim cannot run never passes, so the gap shows.
  return Promise.resolve(false);
}

/**
 * Runs a probe on its period and turns results into a state with the probe's thresholds
 * (initialDelaySeconds, periodSeconds, successThreshold, failureThreshold), like the kubelet.
 */
export class ProbeLoop {
  private timer: NodeJS.Timeout | undefined;
  private successes = 0;
  private failures = 0;
  private stopped = false;
  private state: boolean;

  constructor(
    private readonly probe: V1Probe,
    private readonly target: ProbeTarget,
    private readonly onChange: (ok: boolean) => void,
    initial: boolean,
    private readonly periodScale = 1,
  ) {
    this.state = initial;
    this.schedule((probe.initialDelaySeconds ?? 0) * 1000 * periodScale);
  }

  get ok(): boolean {
    return this.state;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const ok = await runProbe(this.probe, this.target);
    if (this.stopped) return;
    if (ok) {
      this.successes++;
      this.failures = 0;
    } else {
      this.failures++;
      this.successes = 0;
    }
    const next =
      ok && this.successes >= (this.probe.successThreshold ?? 1)
        ? true
        : !ok && this.failures >= (this.probe.failureThreshold ?? 3)
          ? false
          : this.state;
    if (next !== this.state) {
      this.state = next;
      this.onChange(next);
    }
    this.schedule((this.probe.periodSeconds ?? 10) * 1000 * this.periodScale);
  }
}
