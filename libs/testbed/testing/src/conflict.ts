/**
 * Writes to an API server the way Kubernetes clients do (client-go's RetryOnConflict): an update
 * carries the resourceVersion it read, so a writer in between (node-sim's status, a controller,
 * kube-sim's own bookkeeping) makes it a 409 Conflict; the client then reads again, re-applies its
 * change and writes again. A test that writes once and gives up fails by chance under load.
 */

/** Bounded: five conflicts in a row mean something rewrites the object in a loop, a bug to see. */
const ATTEMPTS = 5;

/** An answer of the API server other than the one a write expected. */
export class ApiWriteError extends Error {
  constructor(
    what: string,
    readonly status: number,
    body: string,
  ) {
    super(`${what}: HTTP ${status} ${body.slice(0, 300)}`);
    this.name = 'ApiWriteError';
  }
}

/** True when `e` is a 409 Conflict: client-node's ApiException (`code`) or an ApiWriteError (`status`). */
export function isConflict(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, status } = e as { code?: unknown; status?: unknown };
  return code === 409 || status === 409;
}

/**
 * Reads the object, hands it to `write` (which applies the test's change to what it read and
 * writes it), and on a 409 Conflict reads again and writes again, at most five times; the last
 * conflict is thrown with the number of attempts.
 */
export async function updateOnConflict<T, R>(
  read: () => Promise<T>,
  write: (current: T) => Promise<R>,
): Promise<R> {
  let last: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      return await write(await read());
    } catch (e) {
      if (!isConflict(e)) throw e;
      last = e;
    }
  }
  throw new Error(`still 409 Conflict after ${ATTEMPTS} read-modify-write attempts`, {
    cause: last,
  });
}

/**
 * Sets an object's status through its status subresource (GET, then PUT with the read
 * resourceVersion), as a kubelet or controller does, re-reading on 409 Conflict.
 * `objectUrl` is the object's full URL, e.g. `<server>/api/v1/namespaces/ns/pods/name`.
 */
export async function putStatus(objectUrl: string, status: object): Promise<unknown> {
  return updateOnConflict(
    async () => {
      const res = await fetch(objectUrl);
      const text = await res.text();
      if (res.status !== 200) throw new ApiWriteError(`GET ${objectUrl}`, res.status, text);
      return JSON.parse(text) as Record<string, unknown>;
    },
    async (current) => {
      const res = await fetch(`${objectUrl}/status`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...current, status }),
      });
      const text = await res.text();
      if (res.status !== 200) throw new ApiWriteError(`PUT ${objectUrl}/status`, res.status, text);
      return JSON.parse(text) as unknown;
    },
  );
}
