import { randomUUID } from 'node:crypto';
import { ApiError } from '../agent.errors.js';

/** A configuration transaction: a private copy of the configuration, applied on commit. */
export interface Transaction {
  readonly id: string;
  readonly _version: number;
  status: 'in_progress' | 'failed' | 'outdated' | 'success';
  /** The configuration body (without the version line) as changed inside the transaction. */
  text: string;
}

/** Open transactions, bounded like the real API's `max_open_transactions`. */
export class Transactions {
  private readonly all = new Map<string, Transaction>();

  constructor(private readonly maxOpen = 20) {}

  /** Starts a transaction on the given configuration; 429 when too many are open. */
  create(version: number, text: string): Transaction {
    const open = [...this.all.values()].filter((t) => t.status === 'in_progress').length;
    if (open >= this.maxOpen) {
      throw new ApiError(
        429,
        `cannot start a new transaction, reached the maximum of ${this.maxOpen} open transactions`,
      );
    }
    const t: Transaction = { id: randomUUID(), _version: version, status: 'in_progress', text };
    this.all.set(t.id, t);
    return t;
  }

  /** The transaction, or the API's 404. */
  get(id: string): Transaction {
    const t = this.all.get(id);
    if (!t) throw new ApiError(404, `transaction ${id} does not exist`);
    return t;
  }

  /** A transaction that can still be changed (in progress), or 404/400. */
  open(id: string): Transaction {
    const t = this.get(id);
    if (t.status !== 'in_progress')
      throw new ApiError(400, `transaction ${id} is not in progress (${t.status})`);
    return t;
  }

  list(status?: string): Transaction[] {
    return [...this.all.values()].filter((t) => status === undefined || t.status === status);
  }

  delete(id: string): void {
    this.get(id);
    this.all.delete(id);
  }
}

/** The public view of a transaction (`transaction` schema). */
export function transactionView(t: Transaction): { _version: number; id: string; status: string } {
  return { _version: t._version, id: t.id, status: t.status };
}
