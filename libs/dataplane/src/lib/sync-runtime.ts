// The runtime half of a deployment: the plan's runtime operations sent through the Dataplane
// API's runtime endpoints (HAProxy's runtime API), in an order that never serves a half-made
// state: new certificates, crt-list lines, servers, maps, then removals.
import { parseCrtList, type RuntimeChange } from '#haproxy-config';
import { DataplaneRequestError } from '../dataplane.errors.js';
import type { DataplaneClient } from './client.js';
import type { SyncPlan } from './sync-plan.js';

/** Runtime steps in a safe order: new certificates, crt-list lines, servers, maps, removals. */
export async function applyRuntime(client: DataplaneClient, plan: SyncPlan): Promise<void> {
  for (const c of plan.certs) {
    if (c.isNew)
      await client.send('POST', 'runtime/ssl_certs', { upload: { name: c.name, content: c.pem } });
    else
      await client.send('PUT', `runtime/ssl_certs/${encodeURIComponent(c.name)}`, {
        upload: { name: c.name, content: c.pem },
      });
  }
  for (const d of plan.crtListDels) {
    await client.send('DELETE', 'runtime/ssl_crt_lists/entries', {
      // by certificate only: the running list's line numbers drift from the stored file's
      query: { name: d.list, cert_file: await runtimeCertName(client, d.file) },
    });
  }
  for (const a of plan.crtListAdds) {
    const [e] = parseCrtList(a.line);
    if (!e) continue;
    await client.send('POST', 'runtime/ssl_crt_lists/entries', {
      query: { name: a.list },
      json: {
        file: await runtimeCertName(client, e.file),
        ...(e.ssl_bind_config ? { ssl_bind_config: e.ssl_bind_config } : {}),
        ...(e.sni_filter ? { sni_filter: e.sni_filter } : {}),
      },
    });
  }
  await eachServerInParallel(plan.servers, (s) => sendServer(client, s));
  for (const m of plan.maps) {
    const map = `runtime/maps/${encodeURIComponent(m.name)}`;
    if (!m.edits) {
      // one atomic replace (prepare/commit map): order-sensitive matches such as map_beg stay right
      await client.send('PUT', map, { json: m.entries });
      continue;
    }
    // entry by entry, where that gives the same lookups (the plan decided): a new host costs
    // one entry, not the whole map
    const { add, set, del } = m.edits;
    for (const e of add) await client.send('POST', `${map}/entries`, { json: e });
    for (const e of set)
      await client.send('PUT', `${map}/entries/${encodeURIComponent(e.key)}`, {
        json: { value: e.value },
      });
    for (const key of del) await client.send('DELETE', `${map}/entries/${encodeURIComponent(key)}`);
  }
  for (const n of plan.certDeletes) {
    await client
      .send('DELETE', `runtime/ssl_certs/${encodeURIComponent(n)}`)
      .catch((e: unknown) => {
        // a certificate HAProxy never loaded (only stored) has nothing to remove at runtime
        if (!(e instanceof DataplaneRequestError && e.status === 404)) throw e;
      });
  }
}

/** At most this many server requests in flight to one pod. */
const SERVER_REQUESTS_IN_FLIGHT = 8;

/**
 * Server operations run side by side, in order per server: servers are independent of each other
 * (only the maps, changed after them, route to them), and each request waits mostly on the pod,
 * so an endpoint change of several servers costs about one round trip, not one per server.
 */
async function eachServerInParallel(
  changes: readonly RuntimeChange[],
  send: (c: RuntimeChange) => Promise<void>,
): Promise<void> {
  const byServer = new Map<string, RuntimeChange[]>();
  for (const c of changes) {
    const key = `${c.backend}/${c.kind === 'server.add' ? c.spec.name : c.server}`;
    byServer.set(key, [...(byServer.get(key) ?? []), c]);
  }
  const queues = [...byServer.values()];
  const worker = async (): Promise<void> => {
    for (let q = queues.shift(); q; q = queues.shift()) for (const c of q) await send(c);
  };
  const workers = Math.min(SERVER_REQUESTS_IN_FLIGHT, queues.length);
  // every worker runs to its end before a failure is thrown: none is left writing behind it
  const results = await Promise.allSettled(Array.from({ length: workers }, worker));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** One server operation through the runtime servers endpoints. */
async function sendServer(client: DataplaneClient, s: RuntimeChange): Promise<void> {
  const base = `runtime/backends/${encodeURIComponent(s.backend)}/servers`;
  if (s.kind === 'server.set') {
    await client.send('PUT', `${base}/${encodeURIComponent(s.server)}`, {
      json: {
        ...(s.address !== undefined ? { address: s.address } : {}),
        ...(s.port !== undefined ? { port: s.port } : {}),
        ...(s.weight !== undefined ? { weight: s.weight } : {}),
        ...(s.maint !== undefined ? { admin_state: s.maint ? 'maint' : 'ready' } : {}),
      },
    });
  } else if (s.kind === 'server.add') {
    await client.send('POST', base, {
      json: {
        name: s.spec.name,
        address: s.spec.address,
        ...(s.spec.port !== undefined ? { port: s.spec.port } : {}),
        ...(s.spec.weight !== undefined ? { weight: s.spec.weight } : {}),
        ...(s.spec.params.includes('check') ? { check: 'enabled' } : {}),
        maintenance: s.spec.maint ? 'enabled' : 'disabled',
      },
    });
  } else {
    await client.send('DELETE', `${base}/${encodeURIComponent(s.server)}`);
  }
}

/**
 * The name HAProxy knows a certificate by, for a crt-list line naming `file`. A certificate made
 * at runtime is named by the API after its storage path (e.g. `/etc/haproxy/ssl/a.pem`), which
 * may be written differently in the configuration (`ssl/a.pem`, relative to HAProxy's working
 * directory); `add ssl crt-list` only finds a certificate by its exact name. Unknown: `file`.
 */
async function runtimeCertName(client: DataplaneClient, file: string): Promise<string> {
  const base = file.split('/').pop() ?? file;
  try {
    const r = await client.send('GET', `runtime/ssl_certs/${encodeURIComponent(base)}`);
    const named = (JSON.parse(r.body) as { file?: unknown }).file;
    return typeof named === 'string' && named.split('/').pop() === base ? named : file;
  } catch (e) {
    if (e instanceof DataplaneRequestError && e.status === 404) return file;
    throw e;
  }
}
