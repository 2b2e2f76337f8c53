import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { Backend, ProxyRule } from './proxy-plan.js';

interface Listener {
  readonly server: Server;
  rule: ProxyRule;
  next: number;
}

const RETRY_MS = 5000;

/**
 * node-sim's kube-proxy: one TCP listener per {@link ProxyRule}, each new connection forwarded to
 * the rule's current backends in turn (round robin, as IPVS's `rr`). A rule change applies to new
 * connections only; open ones keep their backend (as conntrack keeps them) until either side
 * closes. A port that cannot be bound (taken, or below 1024 without the privilege) is logged and
 * tried again later.
 */
export class ServiceProxy {
  private readonly listeners = new Map<string, Listener>();
  private readonly failed = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private stopped = false;

  constructor(private readonly log: (line: string) => void) {}

  /** Listens on what `rules` name, stops listening on anything else, swaps backends in place. */
  async sync(rules: readonly ProxyRule[]): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map(rules.map((r) => [r.key, r]));
    for (const [key, l] of this.listeners) {
      if (wanted.has(key)) continue;
      this.listeners.delete(key);
      l.server.close();
      this.log(`proxy ${l.rule.service}: stopped listening on ${key}`);
    }
    for (const rule of rules) {
      const l = this.listeners.get(rule.key);
      if (l !== undefined) {
        if (describe(l.rule) !== describe(rule)) this.log(`proxy ${describe(rule)}`);
        l.rule = rule;
        continue;
      }
      const failedAt = this.failed.get(rule.key);
      if (failedAt !== undefined && Date.now() - failedAt < RETRY_MS) continue;
      await this.listen(rule);
    }
  }

  /** Addresses listened on now (`ip:port`). */
  listening(): string[] {
    return [...this.listeners.keys()];
  }

  private async listen(rule: ProxyRule): Promise<void> {
    const entry: Listener = {
      server: createServer({ allowHalfOpen: true }, (socket) => this.forward(entry, socket)),
      rule,
      next: 0,
    };
    try {
      await new Promise<void>((resolve, reject) => {
        entry.server.once('error', reject);
        entry.server.listen({ host: rule.ip, port: rule.port, exclusive: true }, () => {
          entry.server.off('error', reject);
          resolve();
        });
      });
    } catch (e) {
      this.failed.set(rule.key, Date.now());
      this.log(
        `proxy ${rule.service}: cannot listen on ${rule.key} (${(e as NodeJS.ErrnoException).code ?? String(e)}); retrying`,
      );
      return;
    }
    this.failed.delete(rule.key);
    entry.server.on('error', (e) => this.log(`proxy ${rule.key}: ${e.message}`));
    this.listeners.set(rule.key, entry);
    this.log(`proxy ${describe(rule)}`);
  }

  private forward(l: Listener, client: Socket): void {
    const backends = l.rule.backends;
    if (backends.length === 0 || this.stopped) {
      // No endpoint: refused, as kube-proxy's REJECT rule answers.
      client.resetAndDestroy();
      return;
    }
    const b: Backend = backends[l.next++ % backends.length]!;
    const upstream = createConnection({ host: b.ip, port: b.port, allowHalfOpen: true });
    this.sockets.add(client);
    this.sockets.add(upstream);
    const close = (): void => {
      this.sockets.delete(client);
      this.sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', () => {
      this.sockets.delete(upstream);
      if (!client.destroyed) client.resetAndDestroy();
      this.sockets.delete(client);
    });
    client.on('close', close);
    upstream.on('close', close);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Closes every listener and open connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    const closing = [...this.listeners.values()].map(
      (l) => new Promise<void>((resolve) => l.server.close(() => resolve())),
    );
    this.listeners.clear();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await Promise.all(closing);
  }
}

/** `ns/name:port <via> ip:port -> backend, backend` (the line tests and users read). */
function describe(r: ProxyRule): string {
  const to = r.backends.map((b) => `${b.ip}:${b.port}`).join(',') || '(none)';
  return `${r.service} ${r.via} ${r.key} -> ${to}`;
}
