import type { BusEvent } from '#bus';

const REDACTED = '<redacted>';

/** What /debug shows of an event: never credentials, never key material, never whole configs. */
export function redactEvent(e: BusEvent): BusEvent {
  switch (e.topic) {
    case 'dataplane.credentials':
      return {
        ...e,
        payload: { username: (e.payload as { username?: string }).username, password: REDACTED },
      };
    case 'config.current': {
      const c = e.payload as { source?: unknown };
      return { ...e, payload: { source: c.source, spec: '<see /debug/config>' } };
    }
    case 'render.rendered':
    case 'render.validated': {
      const r = e.payload as { hash?: string };
      return { ...e, payload: { hash: r.hash, outputs: '<see /debug/rendered>' } };
    }
    default:
      return e;
  }
}

const PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----[\s\S]*?-----END \1-----/g;

// a userlist user's password hash (basic auth from a Secret), quoted or not
const USER_PASSWORD =
  /^([ \t]*user[ \t]+(?:"(?:[^"\\\n]|\\.)*"|\S+)[ \t]+(?:insecure-)?password[ \t]+)(?:"(?:[^"\\\n]|\\.)*"|\S+)/gm;

/**
 * Private keys inside PEM text are replaced (certificates stay visible), and so are the password
 * hashes of haproxy.cfg userlists.
 */
export function redactPem(text: string): string {
  return text
    .replace(PRIVATE_KEY, `-----BEGIN $1-----\n${REDACTED}\n-----END $1-----`)
    .replace(USER_PASSWORD, `$1${REDACTED}`);
}

/** Credential-like keys whose values are never shown, wherever they appear. */
const SECRET_KEYS = /^(password|dataplane_password|token|secret|privateKey|key\.pem|tls\.key)$/i;

/**
 * The last line of defence for every /debug answer: private keys in any string are replaced,
 * values under credential-like keys are redacted.
 */
export function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactPem(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        SECRET_KEYS.test(k) && v !== undefined ? REDACTED : redactDeep(v),
      ]),
    );
  return value;
}
