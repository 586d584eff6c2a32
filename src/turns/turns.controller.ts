import { Headers, Param, Query, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ClientId } from '../client-id/client-id.decorator.js';
import { ApiException } from '../errors/api-exception.js';
import { TURNS_CHANNELS, type PollSource } from '../telemetry/turns-channels.js';
import { endSpan, startSpan, tracingEnabled, withSpan, type TurnSpan } from '../telemetry/tracing.js';
import { parseTurnListQuery } from './list/turn-page.js';
import { turnPageResponse } from './list/turn-page-response.js';
import type { TurnStatus } from './turn-status.js';
import { TurnPoll, type TurnPollParams } from './turn-poll.decorator.js';
import { turnStatusResponse } from './turn-status-response.js';
import { TurnStatusService } from './turn-status.service.js';
import { ClientGone } from './wait/client-gone.js';
import { TurnWaitService } from './wait/turn-wait.service.js';
import { parseWaitRequest } from './wait/wait-request.js';

/**
 * The handlers of the list of a session's turns and of the two poll routes,
 * each with an optional bounded wait. Each `TurnsModule` mounts a class made
 * from this one, its routes documented with its options (turn-routes.ts).
 * `ClientIdGuard` has checked the session before a handler runs.
 */
export class TurnsController {
  constructor(
    private readonly turns: TurnStatusService,
    private readonly waits: TurnWaitService,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  async list(
    @Param('id') sessionId: string,
    @Query() query: Record<string, unknown>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() response: unknown,
    @ClientId() clientId?: string,
  ): Promise<void> {
    const page = await this.turns.listTurns(sessionId, parseTurnListQuery(sessionId, query ?? {}));
    const answer = turnPageResponse(page, ifNoneMatch, clientId);
    const adapter = this.adapterHost.httpAdapter;
    for (const name in answer.headers) adapter.setHeader(response, name, answer.headers[name]!);
    if (answer.notModified) adapter.reply(response, undefined, 304);
    else adapter.reply(response, answer.body, 200);
  }

  current(@Param('id') sessionId: string, @TurnPoll() poll: TurnPollParams, @Res() response: unknown): void | Promise<void> {
    return this.traced(sessionId, undefined, poll, response);
  }

  exact(
    @Param('id') sessionId: string,
    @Param('promptId') promptId: string,
    @TurnPoll() poll: TurnPollParams,
    @Res() response: unknown,
  ): void | Promise<void> {
    return this.traced(sessionId, promptId, poll, response);
  }

  /**
   * The answer inside a `turns.poll` span (when one is recorded); a 404 is counted as `not_found`. A poll that
   * asks for no wait and that memory answers, outside a span, is answered at once: no promise.
   */
  private traced(sessionId: string, promptId: string | undefined, poll: TurnPollParams, response: unknown): void | Promise<void> {
    const span = tracingEnabled() ? startSpan('turns.poll') : undefined;
    // A settled Fastify poll: 1.12–1.15× with this (8 fresh daemon pairs, control 1.045); Express 1.015.
    if (span === undefined && poll.waitMs === undefined && poll.prefer === undefined && poll.activity === undefined) {
      const known = this.turns.peek(sessionId, promptId);
      if (known) return this.reply(known, poll, response, 'memory', undefined);
    }
    return this.inSpan(span, sessionId, promptId, poll, response);
  }

  private async inSpan(
    span: TurnSpan | undefined,
    sessionId: string,
    promptId: string | undefined,
    poll: TurnPollParams,
    response: unknown,
  ): Promise<void> {
    span?.setAttributes({ 'turns.session_id': sessionId, 'turns.prompt_id': promptId ?? 'current' });
    try {
      await withSpan(span, () => this.answer(sessionId, promptId, poll, response, span));
      endSpan(span);
    } catch (error) {
      if (error instanceof ApiException && error.getStatus() === 404) {
        TURNS_CHANNELS.poll.publish('not_found');
        span?.setAttribute('turns.source', 'not_found');
      }
      endSpan(span, error);
      throw error;
    }
  }

  /** The status from memory, else from the transcript; then, when the request asked to, the wait for a change; then the reply. */
  private async answer(
    sessionId: string,
    promptId: string | undefined,
    poll: TurnPollParams,
    response: unknown,
    span: TurnSpan | undefined,
  ): Promise<void> {
    const wait = parseWaitRequest(poll.waitMs, poll.prefer, this.waits.maxWaitMs, poll.activity);
    if (wait.preferenceApplied !== undefined) {
      this.adapterHost.httpAdapter.setHeader(response, 'Preference-Applied', `wait=${wait.preferenceApplied}`);
    }
    // Listening from the start: a client may go away while its first answer reads the transcript.
    const gone = wait.waitMs > 0 ? new ClientGone(response) : undefined;
    try {
      const known = this.turns.peek(sessionId, promptId);
      // A held request counts by its first answer too: wake-ups are bridge transitions, read from memory.
      const source: PollSource = known ? 'memory' : 'scan';
      let status = known ?? (await (promptId === undefined ? this.turns.getCurrent(sessionId) : this.turns.getTurn(sessionId, promptId)));
      if (gone) {
        const { ifNoneMatch, clientId } = poll;
        const request = { sessionId, promptId, waitMs: wait.waitMs, ifNoneMatch, clientId, activity: wait.activity, signal: gone };
        status = await this.waits.wait(request, status);
      }
      this.reply(status, poll, response, source, span);
    } finally {
      gone?.release();
    }
  }

  /** The turn routes' headers, then the body as this reader sees it — or a bodiless 304 when `If-None-Match` names the ETag. */
  private reply(status: TurnStatus, poll: TurnPollParams, response: unknown, source: PollSource, span: TurnSpan | undefined): void {
    const answer = turnStatusResponse(status, poll.ifNoneMatch, poll.clientId);
    const adapter = this.adapterHost.httpAdapter;
    for (const name in answer.headers) adapter.setHeader(response, name, answer.headers[name]!);
    const answered = answer.notModified ? 'not_modified' : source;
    TURNS_CHANNELS.poll.publish(answered);
    span?.setAttribute('turns.state', status.state);
    span?.setAttribute('turns.source', answered);
    if (answer.notModified) adapter.reply(response, undefined, 304);
    else adapter.reply(response, answer.body, 200);
  }
}
