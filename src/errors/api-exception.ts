import { HttpException } from '@nestjs/common';

/**
 * An error with a wire shape: `{error, code, ...details}`. It is an
 * `HttpException` whose response is that body, so a host app that mounts
 * `TurnsModule` without {@link ApiExceptionFilter} still answers it as is;
 * the filter adds the extra headers (e.g. `Retry-After`). Build one with
 * `apiError(code, details)`; the codes are catalogued in `ERROR_CATALOGUE`.
 *
 * @publicApi
 */
export class ApiException extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super({ error: message, code, ...details }, status);
    this.message = message;
    this.name = 'ApiException';
  }

  /** The JSON body sent for this error. */
  toBody(): Record<string, unknown> {
    return { error: this.message, code: this.code, ...this.details };
  }
}
