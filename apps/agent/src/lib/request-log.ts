/** One API request as recorded for tests and operators: who changed what, and when. */
export interface RequestLogEntry {
  readonly time: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly user: string | undefined;
  /** Who called: the `X-Haptic-Client` header, else the User-Agent (the controller sends its identity there). */
  readonly client: string | undefined;
  readonly reloadId: string | undefined;
  readonly configurationVersion: string | undefined;
}

/** A bounded in-memory ring of the latest requests. */
export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];

  constructor(private readonly capacity = 2000) {}

  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.shift();
  }

  /** Entries oldest first, optionally only those after index `since` (a cursor). */
  list(): readonly RequestLogEntry[] {
    return this.entries;
  }
}
