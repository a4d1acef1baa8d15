/**
 * An input problem that makes the whole call fail. It is answered with a `fail` envelope and HTTP 200, because
 * existing clients treat any non-2xx status as a transport error and never read the body (docs/protocol.md §3).
 */
export class ParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParamError';
  }
}

/** The request is not allowed (HTTP 401). */
export class AuthError extends Error {
  constructor(message = 'Authentication required.') {
    super(message);
    this.name = 'AuthError';
  }
}

/** The request body is larger than the configured limit (HTTP 413). */
export class PayloadTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`The request body is larger than the limit of ${Math.round(limitBytes / (1024 * 1024))} MB.`);
    this.name = 'PayloadTooLargeError';
  }
}

/** No such operation or service (HTTP 404). */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}
