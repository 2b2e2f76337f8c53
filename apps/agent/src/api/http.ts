import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../agent.errors.js';

/** One API request as the handlers see it. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly params: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A handler's answer; the server adds Configuration-Version and serialises. */
export interface ApiResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  readonly contentType?: string;
}

export type Handler = (req: ApiRequest) => Promise<ApiResponse>;

/** JSON answer. */
export function json(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): ApiResponse {
  return { status, headers, body: JSON.stringify(value), contentType: 'application/json' };
}

/** Plain-text answer. */
export function text(
  status: number,
  value: string,
  headers: Record<string, string> = {},
): ApiResponse {
  return { status, headers, body: value, contentType: 'text/plain' };
}

/** Answer without a body. */
export function empty(status: number, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers };
}

/** A boolean query parameter; go-swagger's 400 for anything but true/false/1/0. */
export function boolParam(req: ApiRequest, name: string): boolean {
  const v = req.query.get(name);
  if (v === null || v === '') return false;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ApiError(400, `${name} in query must be of type boolean: "${v}"`);
}

/** An integer query parameter (undefined when absent). */
export function intParam(req: ApiRequest, name: string): number | undefined {
  const v = req.query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw new ApiError(400, `${name} in query must be of type int64: "${v}"`);
  return Number(v);
}

/** A required string query parameter. */
export function requiredParam(req: ApiRequest, name: string): string {
  const v = req.query.get(name);
  if (v === null || v === '') throw new ApiError(400, `${name} in query is required`);
  return v;
}

/** Parses a JSON request body into an object. */
export function jsonBody(req: ApiRequest): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(req.body.toString() || 'null');
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new ApiError(400, 'request body must be a JSON object');
}

/** Parses a JSON request body that must be an array. */
export function jsonArrayBody(req: ApiRequest): unknown[] {
  try {
    const v: unknown = JSON.parse(req.body.toString() || 'null');
    if (Array.isArray(v)) return v;
  } catch {
    // fall through
  }
  throw new ApiError(400, 'request body must be a JSON array');
}

/** The `file_upload` part of a multipart/form-data body: file name and content. */
export async function fileUpload(req: ApiRequest): Promise<{ name: string; content: Buffer }> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) {
    throw new ApiError(400, 'Content-Type must be multipart/form-data with a file_upload field');
  }
  // The WHATWG Request parser built into Node does the multipart decoding.
  const form = await new Request('http://agent.invalid/', {
    method: 'POST',
    headers: { 'content-type': type },
    body: req.body,
  })
    .formData()
    .catch(() => undefined);
  const file = form?.get('file_upload');
  if (!file || typeof file === 'string') throw new ApiError(400, 'file_upload is required');
  return { name: file.name, content: Buffer.from(await file.arrayBuffer()) };
}

interface Route {
  readonly method: string;
  readonly parts: readonly string[];
  readonly handler: Handler;
}

/** Path-template router (`/a/{name}/b`): 404 for unknown paths, 405 for known paths with other methods. */
export class Router {
  private readonly routes: Route[] = [];

  /** Every route as `METHOD template` (for coverage reports). */
  list(): { method: string; template: string }[] {
    return this.routes.map((r) => ({ method: r.method, template: r.parts.join('/') }));
  }

  add(method: string, template: string, handler: Handler): this {
    this.routes.push({ method, parts: template.split('/'), handler });
    return this;
  }

  /** Finds the handler for a request, or throws the API's 404/405. */
  resolve(method: string, path: string): { handler: Handler; params: Record<string, string> } {
    const parts = path.split('/');
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchParts(route.parts, parts);
      if (!params) continue;
      if (route.method === method) return { handler: route.handler, params };
      allowed.push(route.method);
    }
    if (allowed.length > 0) {
      throw new ApiError(405, `method ${method} is not allowed, but [${allowed.join(',')}] are`);
    }
    throw new ApiError(404, `path ${path} was not found`);
  }
}

function matchParts(
  template: readonly string[],
  parts: readonly string[],
): Record<string, string> | undefined {
  if (template.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i] ?? '';
    const p = parts[i] ?? '';
    if (t.startsWith('{') && t.endsWith('}')) {
      if (p === '') return undefined;
      params[t.slice(1, -1)] = decodeURIComponent(p);
    } else if (t !== p) return undefined;
  }
  return params;
}
