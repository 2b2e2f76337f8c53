/** Where a running bench reports what it is doing. */
export interface Progress {
  /** A new step of the current scenario (e.g. "new hosts"). */
  step(text: string): void;
  /** How far the current step is. */
  count(done: number, total: number): void;
}

/** A progress that reports nothing. */
export const silent: Progress = { step: () => undefined, count: () => undefined };

/**
 * Progress on a terminal: one status line rewritten in place (`[2/7 latency 12 s] new hosts
 * 37/100`); elsewhere one line per step. Both go to `stream` (stderr), never to the results.
 */
export class TerminalProgress implements Progress {
  private scenario = '';
  private index = 0;
  private total = 0;
  private started = Date.now();
  private text = '';
  private lastDraw = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  private get tty(): boolean {
    return this.stream.isTTY === true;
  }

  /** Starts scenario `index` of `total`. */
  begin(scenario: string, index: number, total: number): void {
    Object.assign(this, { scenario, index, total, started: Date.now() });
    this.step('starting');
  }

  step(text: string): void {
    this.text = text;
    if (this.tty) this.draw(true);
    else
      this.stream.write(`haptic bench: [${this.index}/${this.total} ${this.scenario}] ${text}\n`);
  }

  count(done: number, total: number): void {
    if (!this.tty) return;
    this.draw(done === total, ` ${done}/${total}`);
  }

  /** Ends the scenario with a summary line. */
  end(summary: string): void {
    if (this.tty) this.stream.write('\r\x1b[K');
    this.stream.write(`haptic bench: [${this.index}/${this.total} ${this.scenario}] ${summary}\n`);
  }

  private draw(force: boolean, suffix = ''): void {
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const s = ((now - this.started) / 1000).toFixed(0);
    this.stream.write(
      `\r\x1b[K[${this.index}/${this.total} ${this.scenario} ${s} s] ${this.text}${suffix}`,
    );
  }
}
