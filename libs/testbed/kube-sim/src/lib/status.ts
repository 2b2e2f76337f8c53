/** The reasons a real API server puts in `Status.reason` (metav1.StatusReason). */
export type StatusReason =
  | 'BadRequest'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Gone'
  | 'Expired'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'Unauthorized'
  | 'Forbidden'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable'
  | 'NotImplemented';

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A `Status` object, the body of every error response. */
export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: StatusReason | '';
  details?: StatusDetails;
  code: number;
}

/** A request failed the way a real API server fails it: carries the HTTP code and Status body. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason | '',
    message: string,
    readonly details?: StatusDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The `Status` body for this error. */
  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) body.details = this.details;
    return body;
  }
}

/** Identifies an object in messages: resource plural (+ group) and name. */
export interface ObjectRef {
  readonly group: string;
  readonly resource: string;
  readonly name: string;
}

function qualified(ref: ObjectRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

function details(ref: ObjectRef): StatusDetails {
  return { name: ref.name, group: ref.group, kind: ref.resource };
}

export const errors = {
  notFound: (ref: ObjectRef) =>
    new ApiError(404, 'NotFound', `${qualified(ref)} "${ref.name}" not found`, details(ref)),
  alreadyExists: (ref: ObjectRef) =>
    new ApiError(
      409,
      'AlreadyExists',
      `${qualified(ref)} "${ref.name}" already exists`,
      details(ref),
    ),
  conflict: (
    ref: ObjectRef,
    why = 'the object has been modified; please apply your changes to the latest version and try again',
  ) =>
    new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(ref)} "${ref.name}": ${why}`,
      details(ref),
    ),
  invalid: (kind: string, group: string, name: string, causes: StatusCause[]) =>
    new ApiError(
      422,
      'Invalid',
      `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${
        causes.length === 1 ? causes[0]!.message : `[${causes.map((c) => c.message).join(', ')}]`
      }`,
      // A cause carries the field apart and the message without it, as metav1.StatusCause does
      // (kubectl prints "<field>: <message>" for each).
      {
        name,
        group,
        kind,
        causes: causes.map((c) =>
          c.field && c.message.startsWith(`${c.field}: `)
            ? { ...c, message: c.message.slice(c.field.length + 2) }
            : c,
        ),
      },
    ),
  /** etcd refuses the write; the real API server passes that on as a bare 500 (kubernetes#112152). */
  etcdTooLarge: () => new ApiError(500, '', 'etcdserver: request is too large'),
  badRequest: (message: string) => new ApiError(400, 'BadRequest', message),
  methodNotAllowed: (message = 'the server does not allow this method on the requested resource') =>
    new ApiError(405, 'MethodNotAllowed', message),
  unsupportedMediaType: (contentType: string, accepted: readonly string[]) =>
    new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      { causes: [{ reason: 'UnsupportedMediaType', message: contentType }] },
    ),
  notImplemented: (message: string) => new ApiError(501, 'NotImplemented', message),
  internal: (message: string) =>
    new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ message }],
    }),
  expired: (message: string) => new ApiError(410, 'Expired', message),
  gone: (message: string) => new ApiError(410, 'Gone', message),
  tooLarge: (message: string) => new ApiError(413, 'RequestEntityTooLarge', message),
  invalidPatch: (message: string) => new ApiError(422, 'Invalid', message),
  unauthorized: () => new ApiError(401, 'Unauthorized', 'Unauthorized'),
};
