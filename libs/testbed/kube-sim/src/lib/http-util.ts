import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeProtobuf } from './protobuf.js';
import { type ApiError, errors } from './status.js';
import { limits } from './validation.js';

/** Reads a request body, refusing more than a real API server accepts (413). */
export async function readBody(
  req: IncomingMessage,
  limit = limits.requestBodyBytes,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) tooLarge = true;
    else chunks.push(chunk);
  }
  if (tooLarge) throw errors.tooLarge(`Request entity too large: limit is ${limit}`);
  return Buffer.concat(chunks);
}

const jsonTypes = [
  'application/json',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

/** Parses a body by content type: JSON (and the JSON patch types); YAML apply patches stay text. */
export function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const ct = (contentType ?? 'application/json').split(';')[0]!.trim();
  if (ct === 'application/apply-patch+yaml') return raw.toString('utf8');
  if (ct === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(raw);
  if (!jsonTypes.includes(ct)) throw errors.unsupportedMediaType(ct, jsonTypes);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw errors.badRequest(
      `couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/** Sends a JSON body with optional Warning headers (RFC 7234 code 299, as kube-apiserver does). */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  warnings: readonly string[] = [],
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  const h: Record<string, string | string[]> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  };
  if (warnings.length) h.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, h);
  res.end(text);
}

/** Sends an error as a Status body. */
export function sendError(res: ServerResponse, e: ApiError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, e.code, e.toStatus(), [], e.headers);
}
