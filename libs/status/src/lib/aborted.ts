/** Resolves when `signal` aborts — at once when it already has (an 'abort' listener added then never runs). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/**
 * A term of leader-only work: `signal` aborts when the term's deadline does (then nothing more
 * may be written). `follow` ties it to a stop's deadline, already aborted or not.
 */
export class Term {
  private readonly controller = new AbortController();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  follow(deadline: AbortSignal): void {
    if (deadline.aborted) this.controller.abort(deadline.reason);
    else
      deadline.addEventListener('abort', () => this.controller.abort(deadline.reason), {
        once: true,
      });
  }
}
