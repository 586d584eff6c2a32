import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { apiError } from '../errors/api-errors.js';
import type { ApiException } from '../errors/api-exception.js';
import { apiErrorHttpMessage } from '../errors/send-api-error.js';
import type { LoadedDaemonConfig } from './daemon-config.js';
import { stripPrototypeKeys } from './prototype-keys.js';

// The one adapter-aware place: what Express and Fastify do before a request
// reaches Nest (body parsing, routing, malformed requests, Swagger UI), held
// to the daemon's `{error, code}` answers and limits.

interface FastifyLikeReply {
  code(status: number): FastifyLikeReply;
  headers(values: Record<string, string>): FastifyLikeReply;
  send(body: unknown): void;
}

/** The daemon's answer to an error Fastify's router raises before any handler (its `frameworkErrors`), never echoing the request. */
function fastifyFrameworkError(code: string | undefined, statusCode: number | undefined): ApiException {
  if (statusCode === 414 || code === 'FST_ERR_MAX_PARAM_LENGTH') return apiError('not_found');
  return apiError('invalid_request');
}

/** Options of the Fastify adapter: body limit, timeouts, and framework errors in our shape. */
export function fastifyOptions(config: LoadedDaemonConfig) {
  return {
    bodyLimit: config.maxBodyBytes,
    // Strip prototype keys (as Express does, stripPrototypeKeys) instead of a 400 that also closes the connection.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    requestTimeout: config.requestTimeoutMs,
    // Session and prompt ids are at most a few hundred characters; longer ones are answered as unknown.
    routerOptions: { maxParamLength: 1_024 },
    frameworkErrors: (error: { code?: string; statusCode?: number }, _request: unknown, reply: FastifyLikeReply) => {
      const answer = fastifyFrameworkError(error.code, error.statusCode);
      reply.code(answer.getStatus()).headers(answer.headers).send(answer.toBody());
    },
  };
}

/**
 * Malformed requests that Node rejects before any framework sees them get a
 * JSON body too (431 for oversized headers, else 400), and slow clients a
 * time limit for their headers and their whole request.
 */
function hardenServer(server: Server, config: LoadedDaemonConfig): void {
  server.headersTimeout = config.headersTimeoutMs;
  server.requestTimeout = config.requestTimeoutMs;
  // Node checks both only every 30 s by default: check often enough that a cut comes within 1 s of its time.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1_000,
    server.headersTimeout,
    server.requestTimeout,
  );
  server.removeAllListeners('clientError');
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
    const answer =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? apiError('request_header_fields_too_large')
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? apiError('request_timeout')
          : apiError('invalid_request', {}, { message: 'Bad request' });
    socket.end(apiErrorHttpMessage(answer));
  });
}

/** Applies every hardening step to a created (not yet listening) daemon app. */
export function hardenApp(app: INestApplication, config: LoadedDaemonConfig): void {
  // Fastify's own errors (body size, media type, parsing) reach ApiExceptionFilter through Nest's error handler.
  if (config.httpAdapter !== 'fastify') {
    (app as unknown as { useBodyParser(type: string, options: object): void }).useBodyParser('json', {
      limit: config.maxBodyBytes,
      reviver: stripPrototypeKeys,
      // Any JSON value parses, as on Fastify; validation then refuses what is not an object, alike on both.
      strict: false,
    });
  }
  hardenServer(app.getHttpServer() as Server, config);
}
