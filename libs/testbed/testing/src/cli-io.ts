/** The output sinks a `runCli(argv, io)` takes, and what each received (for CLI specs). */
export interface CapturedIo {
  readonly io: { out: (t: string) => void; err: (t: string) => void };
  readonly out: string[];
  readonly err: string[];
}

/** Collects a CLI run's stdout and stderr writes instead of printing them. */
export function captureIo(): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t) }, out, err };
}
