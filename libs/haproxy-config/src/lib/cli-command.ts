import { CliArgumentError } from '../haproxy-config.errors.js';

/**
 * HAProxy 2.6 reads one CLI message (command line + payload) into one buffer of `tune.bufsize`
 * (16 KB by default); larger messages get an empty reply and apply nothing. Stay well below it.
 */
export const CLI_MESSAGE_LIMIT = 15_000;

const FORBIDDEN = /[\r\n\0]/;

/**
 * Escapes one argument for the runtime CLI: the CLI splits words on spaces/tabs and commands on
 * `;`, and understands only backslash escapes (quotes are taken literally). Newlines, carriage
 * returns and NUL end the command whatever the escaping, so they are refused.
 */
export function escapeCliArg(value: string): string {
  if (value.length === 0) throw new CliArgumentError('empty argument cannot be sent on the CLI');
  if (FORBIDDEN.test(value)) {
    throw new CliArgumentError('argument contains a newline, carriage return or NUL', {
      details: { value: value.slice(0, 80) },
    });
  }
  return value.replace(/[\\ \t;]/g, (c) => `\\${c}`);
}

/** Builds one command line from words, escaping every word, refusing lines over the limit. */
export function cliCommand(...words: readonly string[]): string {
  const line = words.map(escapeCliArg).join(' ');
  if (Buffer.byteLength(line) > CLI_MESSAGE_LIMIT) {
    throw new CliArgumentError(`command line longer than ${CLI_MESSAGE_LIMIT} bytes`);
  }
  return line;
}

/**
 * Checks payload lines: a payload ends at the first empty line, so none may be empty, and none
 * may carry a line break of its own.
 */
export function checkPayloadLines(lines: readonly string[]): void {
  for (const line of lines) {
    if (line.trim().length === 0) throw new CliArgumentError('payload line is empty');
    if (FORBIDDEN.test(line)) {
      throw new CliArgumentError('payload line contains a line break or NUL');
    }
  }
}

/**
 * One CLI message: `<command> <<\n<lines>\n\n`, the payload form HAProxy 2.x understands; the
 * empty line ends the payload (without it HAProxy waits, then answers nothing).
 */
export function payloadMessage(command: string, lines: readonly string[]): string {
  checkPayloadLines(lines);
  return `${command} <<\n${lines.join('\n')}\n\n`;
}

/**
 * Splits payload lines into messages that each stay under `limit` bytes including the command,
 * so a bulk update never hits HAProxy 2.6's single-buffer limit. Returns complete messages.
 */
export function chunkPayload(
  command: string,
  lines: readonly string[],
  limit: number = CLI_MESSAGE_LIMIT,
): string[] {
  checkPayloadLines(lines);
  const overhead = Buffer.byteLength(command) + 6; // " <<\n" + final "\n\n"
  const messages: string[] = [];
  let chunk: string[] = [];
  let size = overhead;
  for (const line of lines) {
    const len = Buffer.byteLength(line) + 1;
    if (overhead + len > limit) {
      throw new CliArgumentError(`one payload line is longer than ${limit - overhead} bytes`);
    }
    if (size + len > limit && chunk.length > 0) {
      messages.push(payloadMessage(command, chunk));
      chunk = [];
      size = overhead;
    }
    chunk.push(line);
    size += len;
  }
  if (chunk.length > 0) messages.push(payloadMessage(command, chunk));
  return messages;
}
