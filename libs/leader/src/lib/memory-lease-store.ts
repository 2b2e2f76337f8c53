import type { LeaseRecord, LeaseStore, LeaseWriteResult, ObservedLease } from './lease-store.js';

/**
 * One Lease in memory with resourceVersion semantics (a write naming an old version is a
 * conflict), shared by several electors in tests; `history` keeps every successful write.
 */
export class MemoryLease {
  private current: ObservedLease | undefined;
  private version = 0;
  readonly history: { readonly record: LeaseRecord; readonly writer: string }[] = [];

  get lease(): ObservedLease | undefined {
    return this.current;
  }

  /** A store for one client; `reachable()` false makes its calls fail like a cut-off network. */
  storeFor(client: string, reachable: () => boolean = () => true): LeaseStore {
    const unreachable = () => Promise.reject(new Error(`${client}: API unreachable`));
    return {
      get: () => (reachable() ? Promise.resolve(this.current) : unreachable()),
      create: (record) =>
        reachable() ? Promise.resolve(this.write(client, record)) : unreachable(),
      update: (record, rv) =>
        reachable() ? Promise.resolve(this.write(client, record, rv)) : unreachable(),
    };
  }

  private write(client: string, record: LeaseRecord, rv?: string): LeaseWriteResult {
    if (rv === undefined && this.current)
      return { ok: false, conflict: true, reason: 'already exists' };
    if (rv !== undefined && this.current?.resourceVersion !== rv)
      return { ok: false, conflict: true, reason: 'the object has been modified' };
    this.current = { record, resourceVersion: String(++this.version) };
    this.history.push({ record, writer: client });
    return { ok: true, lease: this.current };
  }
}
