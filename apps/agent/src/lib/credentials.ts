import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { AgentCredentialsError } from '../agent.errors.js';

/** Where the API's users come from. */
export type CredentialSource =
  | { readonly kind: 'userlist'; readonly file: string }
  | { readonly kind: 'password-file'; readonly username: string; readonly file: string };

/**
 * Parses an HAProxy-style userlist (`user NAME insecure-password PASS`), the format the real
 * Dataplane API reads. Hashed `password` entries need crypt(3), which Node lacks: refused.
 */
export function parseUserlist(text: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const words = raw.trim().split(/\s+/);
    if (words[0] !== 'user' || words.length < 2) continue;
    const name = words[1] ?? '';
    const i = words.indexOf('insecure-password');
    if (i > 0 && words[i + 1] !== undefined) users.set(name, words[i + 1] ?? '');
    else if (words.includes('password')) {
      throw new AgentCredentialsError(
        `user "${name}": hashed passwords are not supported by haptic agent; use insecure-password`,
      );
    }
  }
  return users;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/**
 * Checks Basic credentials against a file that is re-read whenever its mtime or size changes,
 * so a credential rotation needs no restart. A file that turns unreadable keeps the last users.
 */
export class Credentials {
  private users = new Map<string, string>();
  private stamp = '';

  constructor(private readonly source: CredentialSource) {
    this.refresh(true);
  }

  private refresh(strict: boolean): void {
    try {
      const st = statSync(this.source.file);
      const stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
      if (stamp === this.stamp) return;
      const text = readFileSync(this.source.file, 'utf8');
      this.users =
        this.source.kind === 'userlist'
          ? parseUserlist(text)
          : new Map([[this.source.username, text.replace(/\r?\n$/, '')]]);
      this.stamp = stamp;
    } catch (e) {
      if (strict) {
        throw e instanceof AgentCredentialsError
          ? e
          : new AgentCredentialsError(`cannot read credentials from ${this.source.file}`, {
              cause: e,
            });
      }
    }
  }

  /** The user name when the Authorization header carries valid Basic credentials. */
  verify(header: string | undefined): string | undefined {
    this.refresh(false);
    const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
    if (!m) return undefined;
    const decoded = Buffer.from(m[1] ?? '', 'base64').toString();
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const user = decoded.slice(0, colon);
    const expected = this.users.get(user);
    if (expected === undefined) return undefined;
    return timingSafeEqual(digest(expected), digest(decoded.slice(colon + 1))) ? user : undefined;
  }
}
