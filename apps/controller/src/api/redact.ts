import type { BusEvent } from '#bus';

/** What /debug shows of an event: never credentials, never key material, never whole configs. */
export function redactEvent(e: BusEvent): BusEvent {
  switch (e.topic) {
    case 'dataplane.credentials':
      return {
        ...e,
        payload: {
          username: (e.payload as { username?: string }).username,
          password: '<redacted>',
        },
      };
    case 'config.current': {
      const c = e.payload as { source?: unknown };
      return { ...e, payload: { source: c.source, spec: '<see /debug/config>' } };
    }
    case 'render.validated': {
      const r = e.payload as { hash?: string };
      return { ...e, payload: { hash: r.hash, outputs: '<see /debug/rendered>' } };
    }
    default:
      return e;
  }
}

/** Private keys inside PEM text are replaced; certificates stay visible. */
export function redactPem(text: string): string {
  return text.replace(
    /-----BEGIN ([A-Z ]*PRIVATE KEY)-----[\s\S]*?-----END \1-----/g,
    '-----BEGIN $1-----\n<redacted>\n-----END $1-----',
  );
}
