import type { IncomingMessage } from 'node:http';

/** Who sent a request: its User-Agent header and its bearer token (empty when absent). */
export interface ClientIdentity {
  readonly userAgent: string;
  readonly token: string;
}

/** Selects clients: every given field must match (a rule with neither matches nobody). */
export interface ClientMatch {
  /** A substring of the User-Agent header, or a regular expression tested against it. */
  readonly userAgent?: string | RegExp;
  /** The exact bearer token the client sends. */
  readonly token?: string;
}

/**
 * How a cut-off client is treated:
 * - `fail`: every request (watches included) is answered `code` (default 503) at once; its open
 *   watches end;
 * - `drop`: every request's connection is destroyed without an answer (the client sees a reset);
 *   its open watch connections are destroyed too;
 * - `hang`: requests are never answered and open watches deliver nothing more, as behind a network
 *   partition; on `restore` those connections are destroyed (the client sees a reset).
 */
export type CutMode = 'fail' | 'drop' | 'hang';

/** One client cut off the API. */
export interface CutRule extends ClientMatch {
  readonly mode?: CutMode;
  /** HTTP code for mode `fail`: 503 (default), 500 or 429. */
  readonly code?: 500 | 503 | 429;
}

/** An open connection of a client that a cut can act on (watches, hung requests). */
export interface ClientConnection {
  readonly client: ClientIdentity;
  /** Ends the response cleanly (mode fail). */
  close(): void;
  /** Destroys the socket (mode drop, and hung connections on restore). */
  abort(): void;
  /** Stops writing anything more (mode hang). */
  freeze(): void;
}

/** The identity of a request's sender. */
export function clientOf(req: IncomingMessage): ClientIdentity {
  const auth = req.headers.authorization ?? '';
  return {
    userAgent: req.headers['user-agent'] ?? '',
    token: auth.startsWith('Bearer ') ? auth.slice(7) : '',
  };
}

/** Whether `client` is selected by `m`. */
export function matchesClient(m: ClientMatch, client: ClientIdentity): boolean {
  if (m.userAgent === undefined && m.token === undefined) return false;
  if (m.token !== undefined && m.token !== client.token) return false;
  if (m.userAgent !== undefined) {
    const ok =
      typeof m.userAgent === 'string'
        ? client.userAgent.includes(m.userAgent)
        : m.userAgent.test(client.userAgent);
    if (!ok) return false;
  }
  return true;
}

/** The cuts in force, by id, and the connections they hold (hung requests and frozen watches). */
export class ClientCuts {
  private readonly cuts = new Map<string, Required<Pick<CutRule, 'mode'>> & CutRule>();
  private readonly held = new Map<string, Set<ClientConnection>>();
  private next = 1;

  /** Adds a cut; acts on the matching open connections now. Returns its id. */
  add(rule: CutRule, open: Iterable<ClientConnection>): string {
    if (rule.userAgent === undefined && rule.token === undefined)
      throw new Error('kube-sim cutOff needs a userAgent or a token to select the client');
    const id = `cut-${this.next++}`;
    const r = { ...rule, mode: rule.mode ?? 'fail' };
    this.cuts.set(id, r);
    this.held.set(id, new Set());
    for (const c of [...open]) if (matchesClient(r, c.client)) this.act(id, c);
    return id;
  }

  /** The cut (id and rule) that applies to this client, if any. */
  find(client: ClientIdentity): { id: string; rule: CutRule & { mode: CutMode } } | undefined {
    for (const [id, rule] of this.cuts) if (matchesClient(rule, client)) return { id, rule };
    return undefined;
  }

  /** Acts on one connection of a cut client (a new watch or a request held by mode hang). */
  act(id: string, c: ClientConnection): void {
    const rule = this.cuts.get(id);
    if (!rule) return;
    if (rule.mode === 'fail') c.close();
    else if (rule.mode === 'drop') c.abort();
    else {
      c.freeze();
      this.held.get(id)?.add(c);
    }
  }

  /** Forgets a held connection that ended on its own (the client gave up). */
  release(id: string, c: ClientConnection): void {
    this.held.get(id)?.delete(c);
  }

  /** Lifts one cut (or every cut without an id); held connections are destroyed. */
  restore(id?: string): void {
    for (const key of id === undefined ? [...this.cuts.keys()] : [id]) {
      for (const c of this.held.get(key) ?? []) c.abort();
      this.held.delete(key);
      this.cuts.delete(key);
    }
  }

  /** The cuts in force. */
  list(): { id: string; rule: CutRule }[] {
    return [...this.cuts].map(([id, rule]) => ({ id, rule }));
  }
}
