import type { DataplaneCredentials } from '#events';
import type { KubeObject } from './ports.js';

/** What the credentials state holds: the credentials, or why there are none. */
export type CredentialsState =
  | { readonly ok: true; readonly credentials: DataplaneCredentials }
  | { readonly ok: false; readonly reason: string };

/** Reads `dataplane_username` and `dataplane_password` from a Secret (data or stringData). */
export function credentialsFromSecret(
  secret: KubeObject | undefined,
  ref: string,
): CredentialsState {
  if (!secret) return { ok: false, reason: `Secret ${ref} not found` };
  const data = (secret['data'] ?? {}) as Record<string, string>;
  const stringData = (secret['stringData'] ?? {}) as Record<string, string>;
  const read = (key: string): string | undefined =>
    stringData[key] ??
    (data[key] !== undefined ? Buffer.from(data[key], 'base64').toString('utf8') : undefined);
  const username = read('dataplane_username');
  const password = read('dataplane_password');
  if (username === undefined || password === undefined) {
    return { ok: false, reason: `Secret ${ref} lacks dataplane_username or dataplane_password` };
  }
  return {
    ok: true,
    credentials: { username, password, version: secret.metadata.resourceVersion ?? '' },
  };
}
