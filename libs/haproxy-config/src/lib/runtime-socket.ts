import { connect } from 'node:net';
import { RuntimeCommandError, RuntimeSocketError } from '../haproxy-config.errors.js';

export interface SendOptions {
  /** Give up after this many milliseconds (default: the socket's timeout). */
  readonly timeoutMs?: number;
  /** Accept an empty reply (only the 2.6 master `reload` legitimately answers nothing). */
  readonly allowEmpty?: boolean;
}

/**
 * A client for one HAProxy CLI socket (stats socket or master socket), one connection per
 * message in non-interactive mode: write the message, half-close, read until HAProxy closes.
 * Without the half-close the master CLI keeps the connection open and never ends the reply.
 */
export class RuntimeSocket {
  constructor(
    readonly path: string,
    private readonly timeoutMs = 10_000,
    /** Told every message before it is sent (the agent logs the commands it sends). */
    private readonly onSend?: (message: string) => void,
  ) {}

  /** Sends one already-built message (command line, optionally with payload) and returns the reply. */
  send(message: string, options: SendOptions = {}): Promise<string> {
    const text = message.endsWith('\n') ? message : `${message}\n`;
    this.onSend?.(text);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(this.path);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new RuntimeSocketError(`no reply from ${this.path} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.on('connect', () => socket.end(text));
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        // A peer that resets after answering (2.6 reload) still counts as "answered".
        if (e.code === 'ECONNRESET' && options.allowEmpty)
          return resolve(Buffer.concat(chunks).toString());
        reject(
          new RuntimeSocketError(`runtime socket ${this.path}: ${e.code ?? e.message}`, {
            cause: e,
            details: { errno: e.code },
          }),
        );
      });
      socket.on('close', (hadError) => {
        clearTimeout(timer);
        if (hadError) return;
        const reply = Buffer.concat(chunks).toString();
        if (reply === '' && !options.allowEmpty) {
          reject(new RuntimeCommandError(firstLine(text), reply));
        } else resolve(reply);
      });
    });
  }

  /** Sends a message and fails unless the reply is blank or matches one of `ok`. */
  async expect(
    message: string,
    ok: readonly RegExp[] = [],
    options: SendOptions = {},
  ): Promise<string> {
    const reply = await this.send(message, options);
    if (isSuccessReply(reply, ok)) return reply;
    throw new RuntimeCommandError(firstLine(message), reply);
  }
}

/** True when the reply is only whitespace (HAProxy's usual success) or matches a success pattern. */
export function isSuccessReply(reply: string, ok: readonly RegExp[] = []): boolean {
  if (reply.trim() === '') return reply.length > 0;
  return ok.some((re) => re.test(reply));
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
