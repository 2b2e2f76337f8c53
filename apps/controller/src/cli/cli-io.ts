/** Where a command writes; injected so tests capture output without touching the process. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** Exit codes shared by every subcommand. */
export const ExitCode = {
  ok: 0,
  /** The command ran and failed (a runtime error, a failed test, an unreachable peer). */
  failure: 1,
  /** The input was wrong: bad flags, an unreadable file, an invalid configuration. */
  invalidInput: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
