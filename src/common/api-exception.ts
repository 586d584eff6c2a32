import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * An error with a wire shape: `{error, code, ...details}`. It is an
 * `HttpException` whose response is that body, so a host app that mounts
 * `TurnsModule` without {@link ApiExceptionFilter} still answers it as is;
 * the daemon's filter adds the extra headers (e.g. `Retry-After`).
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

  static sessionNotFound(sessionId: string): ApiException {
    return new ApiException(HttpStatus.NOT_FOUND, 'session_not_found', 'Session not found', { sessionId });
  }

  static promptNotFound(sessionId: string, promptId: string): ApiException {
    return new ApiException(HttpStatus.NOT_FOUND, 'prompt_not_found', 'Prompt not found', { sessionId, promptId });
  }

  static badRequest(code: string, message: string, details?: Record<string, unknown>): ApiException {
    return new ApiException(HttpStatus.BAD_REQUEST, code, message, details);
  }
}
