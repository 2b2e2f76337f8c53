/**
 * Work that declares whether it needs leadership (as controller-runtime's LeaderElectionRunnable
 * does). The LeaderModule finds every provider implementing it, starts the work when this replica
 * gains leadership and stops it when leadership ends. Work never checks leadership by hand.
 */
export interface LeaderElectionRunnable {
  /** True: run only while this replica leads. */
  needLeaderElection(): boolean;
  /** Leadership gained: begin from current state (state topics hand over the latest values). */
  startLeading(): void | Promise<void>;
  /**
   * Leadership ends: stop starting new work; work in flight may finish until `deadline` aborts,
   * then it is abandoned (no write may follow). Resolves when nothing of it runs any more.
   */
  stopLeading(deadline: AbortSignal): Promise<void>;
}

/** Whether a provider instance is leader-elected work. */
export function isLeaderElectionRunnable(x: unknown): x is LeaderElectionRunnable {
  const r = x as Partial<LeaderElectionRunnable> | null | undefined;
  return (
    typeof r?.needLeaderElection === 'function' &&
    typeof r.startLeading === 'function' &&
    typeof r.stopLeading === 'function'
  );
}

/** The leader.status state: who leads, as this replica sees it. */
export interface LeaderStatus {
  readonly isLeader: boolean;
  /** This replica. */
  readonly identity: string;
  /** The Lease's holder as last observed ('' when released; absent before the first read). */
  readonly holder?: string;
  /** The holder's renewTime as last observed (the holder's clock, shown as written). */
  readonly observedRenewTime?: string;
  /** When this replica saw that record (its own clock, ISO). */
  readonly observedAt?: string;
  /** 'lease' (elected) or 'standalone' (leaderElection.enabled false: always leader). */
  readonly mode: 'lease' | 'standalone';
}
