import got, { HTTPError, RequestError, type Got } from 'got';
import { CHECKED_HEADER, checkedToken } from '#haproxy-config';
import {
  DataplaneConfigRejectedError,
  DataplaneRequestError,
  DataplaneVersionConflictError,
} from '../dataplane.errors.js';

/** How an https Dataplane API is verified (`dataplane.tls`). */
export interface DataplaneTls {
  /** PEM of the CA(s) that sign the API's certificate; the system CAs when absent. */
  readonly ca?: string;
  /** Accept any certificate (testing only). */
  readonly insecureSkipVerify?: boolean;
}

/** Where and how to reach one Dataplane API. */
export interface DataplaneEndpoint {
  /** e.g. http://10.0.0.5:5555 (no /v3). */
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** Sent as User-Agent so the API's request log tells who changed what. */
  readonly identity?: string;
  readonly timeoutMs?: number;
  /** Aborts every request of this client (a deployment abandoned when leadership ends). */
  readonly signal?: AbortSignal;
  /** For https URLs: the CA to trust, or no verification. */
  readonly tls?: DataplaneTls;
}

/** Storage kinds of the Dataplane API (files kept on the HAProxy side). */
export type StorageKind = 'maps' | 'ssl_certificates' | 'general';

export interface StoredFile {
  readonly storage_name: string;
  readonly file?: string;
}

export interface PushResult {
  readonly status: number;
  readonly version: number;
  readonly reloadId?: string;
}

export interface ReloadStatus {
  readonly id: string;
  readonly status: 'in_progress' | 'succeeded' | 'failed';
  readonly response?: string;
}

const CONFIG = '/v3/services/haproxy/configuration';

/** A typed client for the subset of the Dataplane API v3 that haptic uses. */
export class DataplaneClient {
  private readonly http: Got;

  constructor(readonly endpoint: DataplaneEndpoint) {
    this.http = got.extend({
      prefixUrl: endpoint.url.replace(/\/$/, ''),
      username: endpoint.username,
      password: endpoint.password,
      headers: { 'user-agent': endpoint.identity ?? 'haptic' },
      timeout: { request: endpoint.timeoutMs ?? 30_000 },
      retry: { limit: 0 },
      throwHttpErrors: true,
      ...(endpoint.signal ? { signal: endpoint.signal } : {}),
      ...(endpoint.tls
        ? {
            https: {
              ...(endpoint.tls.ca ? { certificateAuthority: endpoint.tls.ca } : {}),
              rejectUnauthorized: endpoint.tls.insecureSkipVerify !== true,
            },
          }
        : {}),
    });
  }

  /** The current configuration version. */
  async version(): Promise<number> {
    return this.call(async () => Number(await this.http.get(`${CONFIG.slice(1)}/version`).text()));
  }

  /** The running configuration as stored (with its `# _version=` line) and its version. */
  async getRaw(): Promise<{ text: string; version: number }> {
    return this.call(async () => {
      const res = await this.http.get(`${CONFIG.slice(1)}/raw`);
      return { text: res.body, version: Number(res.headers['configuration-version'] ?? NaN) };
    });
  }

  /** Replaces the whole configuration; 409 on a stale version, 400 when HAProxy refuses it. */
  async pushRaw(
    text: string,
    opts: {
      version: number;
      forceReload?: boolean;
      skipReload?: boolean;
      onlyValidate?: boolean;
      /** This exact text passed the render's `haproxy -c` (a haptic agent then runs none). */
      checked?: boolean;
    },
  ): Promise<PushResult> {
    const searchParams: Record<string, string> = { version: String(opts.version) };
    if (opts.forceReload) searchParams['force_reload'] = 'true';
    if (opts.skipReload) searchParams['skip_reload'] = 'true';
    if (opts.onlyValidate) searchParams['only_validate'] = 'true';
    return this.call(async () => {
      const res = await this.http.post(`${CONFIG.slice(1)}/raw`, {
        body: text,
        headers: {
          'content-type': 'text/plain',
          ...(opts.checked ? { [CHECKED_HEADER]: checkedToken(text) } : {}),
        },
        searchParams,
      });
      const reloadId = res.headers['reload-id'];
      return {
        status: res.statusCode,
        version: Number(res.headers['configuration-version'] ?? opts.version + 1),
        ...(typeof reloadId === 'string' ? { reloadId } : {}),
      };
    });
  }

  /** Lists stored files of one kind. */
  async listStorage(kind: StorageKind): Promise<StoredFile[]> {
    return this.call(async () =>
      this.http.get(`v3/services/haproxy/storage/${kind}`).json<StoredFile[]>(),
    );
  }

  /** Reads one stored file's content, or undefined when it does not exist. */
  async readStorage(kind: StorageKind, name: string): Promise<string | undefined> {
    try {
      return await this.call(async () =>
        this.http.get(`v3/services/haproxy/storage/${kind}/${encodeURIComponent(name)}`).text(),
      );
    } catch (e) {
      if (e instanceof DataplaneRequestError && e.status === 404) return undefined;
      throw e;
    }
  }

  /** Creates or replaces a stored file without reloading. */
  async writeStorage(
    kind: StorageKind,
    name: string,
    content: string,
    exists: boolean,
  ): Promise<void> {
    const path = `v3/services/haproxy/storage/${kind}`;
    await this.call(async () => {
      if (exists && kind !== 'general') {
        await this.http.put(`${path}/${encodeURIComponent(name)}`, {
          body: content,
          headers: { 'content-type': 'text/plain' },
          searchParams: { skip_reload: 'true' },
        });
      } else if (exists) {
        // general files are replaced with a multipart upload (the spec's file_upload), not text/plain
        await this.http.put(`${path}/${encodeURIComponent(name)}`, {
          body: upload(name, content),
          searchParams: { skip_reload: 'true' },
        });
      } else {
        // certificate creation reloads unless skip_reload (maps and general files take no such flag)
        await this.http.post(path, {
          body: upload(name, content),
          ...(kind === 'ssl_certificates' ? { searchParams: { skip_reload: 'true' } } : {}),
        });
      }
    });
  }

  /** Replaces a stored file without skip_reload: the API reloads; answers the Reload-ID. */
  async writeStorageReloading(
    kind: StorageKind,
    name: string,
    content: string,
  ): Promise<string | undefined> {
    const path = `v3/services/haproxy/storage/${kind}/${encodeURIComponent(name)}`;
    return this.call(async () => {
      const res =
        kind === 'general'
          ? await this.http.put(path, { body: upload(name, content) })
          : await this.http.put(path, { body: content, headers: { 'content-type': 'text/plain' } });
      const id = res.headers['reload-id'];
      return typeof id === 'string' ? id : undefined;
    });
  }

  /** Deletes a stored file without reloading. */
  async deleteStorage(kind: StorageKind, name: string): Promise<void> {
    await this.call(async () =>
      this.http.delete(`v3/services/haproxy/storage/${kind}/${encodeURIComponent(name)}`, {
        searchParams: { skip_reload: 'true' },
      }),
    );
  }

  /**
   * One API call by path (below `/v3/services/haproxy/`), for the runtime and storage operations
   * of the engine; answers status, text body and headers; HTTP errors become haptic errors.
   */
  async send(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    opts: {
      json?: unknown;
      text?: string;
      upload?: { name: string; content: string };
      query?: Record<string, string>;
    } = {},
  ): Promise<{
    status: number;
    body: string;
    headers: Record<string, string | string[] | undefined>;
  }> {
    return this.call(async () => {
      const res = await this.http(`v3/services/haproxy/${path}`, {
        method,
        ...(opts.query ? { searchParams: opts.query } : {}),
        ...(opts.json !== undefined ? { json: opts.json } : {}),
        ...(opts.text !== undefined
          ? { body: opts.text, headers: { 'content-type': 'text/plain' } }
          : {}),
        ...(opts.upload ? { body: upload(opts.upload.name, opts.upload.content) } : {}),
      });
      return { status: res.statusCode, body: res.body, headers: res.headers };
    });
  }

  /** The API's version (`/v3/info` api.version, e.g. `v3.0.5 ...`): [major, minor]. */
  async apiVersion(): Promise<readonly [number, number]> {
    const m = /(\d+)\.(\d+)/.exec(await this.apiVersionText());
    return [Number(m?.[1] ?? 3), Number(m?.[2] ?? 0)] as const;
  }

  /** True when the API is haptic's agent (`info.api.version` names it). */
  async isHapticAgent(): Promise<boolean> {
    return /\bhaptic-agent\b/.test(await this.apiVersionText());
  }

  private apiVersionText(): Promise<string> {
    return this.call(async () => {
      const info = await this.http.get('v3/info').json<{ api?: { version?: string } }>();
      return info.api?.version ?? '';
    });
  }

  /** HAProxy's version from `runtime/info` (`info.version`, e.g. `2.6.12-1`): [major, minor]. */
  async haproxyVersion(): Promise<readonly [number, number]> {
    return this.call(async () => {
      const r = await this.http
        .get('v3/services/haproxy/runtime/info')
        .json<{ info?: { version?: string } } | { info?: { version?: string } }[]>();
      const v = (Array.isArray(r) ? r[0] : r)?.info?.version ?? '';
      const m = /(\d+)\.(\d+)/.exec(v);
      return [Number(m?.[1] ?? 0), Number(m?.[2] ?? 0)] as const;
    });
  }

  /** The status of one reload. */
  async reload(id: string): Promise<ReloadStatus> {
    return this.call(async () =>
      this.http.get(`v3/services/haproxy/reloads/${encodeURIComponent(id)}`).json<ReloadStatus>(),
    );
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw translate(e, this.endpoint.url);
    }
  }
}

/** A multipart body with the file in `file_upload`, named by its storage name. */
function upload(name: string, content: string): FormData {
  const form = new FormData();
  form.append('file_upload', new Blob([content]), name);
  return form;
}

/** Maps HTTP failures onto haptic errors, keeping the API's own message. */
function translate(e: unknown, url: string): Error {
  if (e instanceof HTTPError) {
    const status = e.response.statusCode;
    const message = apiMessage(e.response.body) ?? `HTTP ${status}`;
    if (status === 409 && /version mismatch/i.test(message))
      return new DataplaneVersionConflictError(message, { cause: e });
    if (status === 400 && /config|haproxy|reload/i.test(message))
      return new DataplaneConfigRejectedError(message, { cause: e });
    return new DataplaneRequestError(`${url}: ${message}`, status, { cause: e });
  }
  if (e instanceof RequestError)
    return new DataplaneRequestError(`${url}: ${e.code ?? e.message}`, undefined, { cause: e });
  return e instanceof Error ? e : new Error(String(e));
}

function apiMessage(body: unknown): string | undefined {
  try {
    const parsed = JSON.parse(String(body)) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return typeof body === 'string' && body.length > 0 ? body.slice(0, 500) : undefined;
  }
}
