import { createHash } from 'node:crypto';

/**
 * haptic's extension of the Dataplane API's raw configuration push: the text was checked by the
 * controller's own `haproxy -c` (with the same stored files), so haptic's agent, which stores it
 * without a reload, need not run a second one. The value names the text by its SHA-256, so the
 * claim covers those exact bytes only; the real Dataplane API ignores the header and checks.
 */
export const CHECKED_HEADER = 'x-haptic-checked';

/** The header's value for a configuration text. */
export function checkedToken(text: string | Buffer): string {
  return `sha256=${createHash('sha256').update(text).digest('hex')}`;
}
