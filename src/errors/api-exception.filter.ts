import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { apiError, type ApiErrorCode } from './api-errors.js';
import { ApiException } from './api-exception.js';

/**
 * Codes for errors that reach the filter as Nest or body-parser exceptions.
 * Their messages are not passed on: a framework's message may echo the
 * request (`Cannot GET /…`, `Failed to decode param '…'`).
 */
const CODE_BY_STATUS: Record<number, ApiErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  431: 'request_header_fields_too_large',
};

/** The `{error, code}` (and catalogued headers) of a foreign 4xx, by status alone. */
function foreignError(status: number): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const code = CODE_BY_STATUS[status];
  if (!code) return { status, body: { error: 'Request failed', code: `http_${status}` }, headers: {} };
  const error = apiError(code);
  return { status, body: error.toBody(), headers: error.headers };
}

function isBodyParseError(error: unknown): boolean {
  // express's body-parser marks it with `type`, fastify with its error code.
  const type = (error as { type?: unknown })?.type;
  const code = (error as { code?: unknown })?.code;
  return type === 'entity.parse.failed' || code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError;
}

/**
 * The one place that turns exceptions into `{error, code, ...}` bodies, on
 * Express and Fastify alike. Unexpected errors are logged (by name and message
 * only, never request data) and answered with a generic 500.
 *
 * @publicApi
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { httpAdapter } = this.adapterHost;
    const response = host.switchToHttp().getResponse();
    const { status, body, headers } = this.describe(exception);
    for (const [name, value] of Object.entries(headers)) httpAdapter.setHeader(response, name, value);
    httpAdapter.reply(response, body, status);
  }

  private describe(exception: unknown): {
    status: number;
    body: Record<string, unknown>;
    headers: Record<string, string>;
  } {
    if (exception instanceof ApiException) {
      return { status: exception.getStatus(), body: exception.toBody(), headers: exception.headers };
    }
    const cause = exception instanceof HttpException ? exception.cause : undefined;
    if (isBodyParseError(exception) || isBodyParseError(cause)) {
      return this.describe(apiError('invalid_json'));
    }
    if (exception instanceof HttpException) return foreignError(exception.getStatus());
    const status = (exception as { statusCode?: unknown })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return foreignError(status);
    const name = exception instanceof Error ? exception.name : typeof exception;
    this.logger.error(`Unhandled ${name}: ${exception instanceof Error ? exception.message : ''}`);
    return this.describe(apiError('internal_error'));
  }
}
