import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export type LoadKind = 'keep-alive' | 'new-connection' | 'tls';

/** Counters of a load run; `errors` keeps the first few failures verbatim. */
export interface LoadResult {
  ok: number;
  failed: number;
  byKind: Record<LoadKind, number>;
  errors: string[];
}

/**
 * Steady real-HTTP load through HAProxy: loops of keep-alive HTTP, new-connection HTTP and TLS
 * requests until stopped. Any error or non-200 answer counts as a failed request.
 */
export class LoadGenerator {
  readonly result: LoadResult = {
    ok: 0,
    failed: 0,
    byKind: { 'keep-alive': 0, 'new-connection': 0, tls: 0 },
    errors: [],
  };
  private running = true;
  private loops: Promise<void>[] = [];
  private readonly keepAlive = new HttpAgent({ keepAlive: true, maxSockets: 8 });
  private readonly tlsAgent = new HttpsAgent({ keepAlive: false, rejectUnauthorized: false });

  constructor(
    private readonly host: string,
    private readonly httpPort: number,
    private readonly tlsPort: number,
  ) {}

  /** Starts `perKind` concurrent loops of each kind. */
  start(perKind = 3): void {
    for (const kind of ['keep-alive', 'new-connection', 'tls'] as const) {
      for (let i = 0; i < perKind; i++) this.loops.push(this.loop(kind));
    }
  }

  /**
   * Resolves once every kind has had a 200 answer since the call; fails after `timeoutMs` with
   * the counts it saw (failures too). A positive marker that load flows, instead of sleeping a
   * while and hoping it does.
   */
  async flowing(timeoutMs = 30_000): Promise<void> {
    const answers = () => ({ ...this.result.byKind, failed: this.result.failed });
    const before = answers();
    const moved = () =>
      (['keep-alive', 'new-connection', 'tls'] as const).every(
        (k) => this.result.byKind[k] > before[k],
      );
    const deadline = Date.now() + timeoutMs;
    while (!moved()) {
      if (Date.now() > deadline)
        throw new Error(
          `no answer on every kind of load within ${timeoutMs} ms: before ${JSON.stringify(before)}, now ${JSON.stringify(answers())}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<LoadResult> {
    this.running = false;
    await Promise.all(this.loops);
    this.keepAlive.destroy();
    this.tlsAgent.destroy();
    return this.result;
  }

  private async loop(kind: LoadKind): Promise<void> {
    while (this.running) {
      try {
        const status = await this.once(kind);
        if (status === 200) {
          this.result.ok++;
          this.result.byKind[kind]++;
        } else this.fail(`${kind}: HTTP ${status}`);
      } catch (e) {
        this.fail(`${kind}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  private fail(text: string): void {
    this.result.failed++;
    if (this.result.errors.length < 10) this.result.errors.push(text);
  }

  private once(kind: LoadKind): Promise<number> {
    return new Promise((resolve, reject) => {
      const common = { host: this.host, path: '/load', timeout: 10_000 };
      const onRes = (res: IncomingMessage) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      };
      const req =
        kind === 'tls'
          ? httpsRequest(
              { ...common, port: this.tlsPort, agent: this.tlsAgent, servername: 'site.example' },
              onRes,
            )
          : httpRequest(
              kind === 'keep-alive'
                ? { ...common, port: this.httpPort, agent: this.keepAlive }
                : {
                    ...common,
                    port: this.httpPort,
                    agent: false,
                    headers: { connection: 'close' },
                  },
              onRes,
            );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  }
}
