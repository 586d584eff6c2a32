import { Controller, Param } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiException } from '../common/api-exception.js';
import { NotModifiedException } from '../common/not-modified.exception.js';
import { TURNS_CHANNELS, type PollSource } from '../telemetry/turns-channels.js';
import { endSpan, startSpan, tracingEnabled, withSpan, type TurnSpan } from '../telemetry/tracing.js';
import type { TurnStatus } from './turn-status.js';
import { turnStatusResponse } from './turn-status-response.js';
import { TurnStatusRoute } from './turn-status-route.decorator.js';
import { ClientGone } from './wait/client-gone.js';
import { TurnWait, type TurnWaitParams } from './wait/turn-wait.decorator.js';
import { TurnWaitService } from './wait/turn-wait.service.js';
import { parseWaitRequest } from './wait/wait-request.js';

/**
 * The two poll routes, each with an optional bounded wait. `current` is
 * declared first so it never reads as a promptId.
 */
@ApiTags('turns')
@Controller('session/:id/turns')
export class TurnsController {
  constructor(
    private readonly waits: TurnWaitService,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @TurnStatusRoute(
    'current',
    'The running prompt, else the queued head, else the newest settled one, else idle',
    ['session_not_found', 'invalid_transcript_cursor'],
    'getCurrentTurn',
  )
  current(@Param('id') sessionId: string, @TurnWait() wait: TurnWaitParams): string | Promise<string> {
    return this.answer(sessionId, undefined, wait);
  }

  @TurnStatusRoute(
    ':promptId',
    'The status of one prompt',
    ['session_not_found', 'prompt_not_found', 'invalid_transcript_cursor'],
    'getTurn',
  )
  @ApiParam({ name: 'promptId', description: 'The promptId returned by POST /session/{id}/prompt.', schema: { type: 'string' } })
  exact(@Param('id') sessionId: string, @Param('promptId') promptId: string, @TurnWait() wait: TurnWaitParams): string | Promise<string> {
    return this.answer(sessionId, promptId, wait);
  }

  /** The answer inside a `turns.poll` span (when OpenTelemetry is loaded), counted by the source it came from. */
  private answer(sessionId: string, promptId: string | undefined, params: TurnWaitParams): string | Promise<string> {
    // Without a recording span, no attributes and no closure per poll.
    const span = tracingEnabled() ? startSpan('turns.poll') : undefined;
    span?.setAttributes({ 'turns.session_id': sessionId, 'turns.prompt_id': promptId ?? 'current' });
    let answer: string | Promise<string>;
    try {
      answer = span
        ? withSpan(span, () => this.answerNow(sessionId, promptId, params, span))
        : this.answerNow(sessionId, promptId, params, undefined);
    } catch (error) {
      throw this.failed(error, span);
    }
    if (typeof answer === 'string') {
      endSpan(span);
      return answer;
    }
    return answer.then(
      (body) => {
        endSpan(span);
        return body;
      },
      (error: unknown) => {
        throw this.failed(error, span);
      },
    );
  }

  /** The body (headers set), at once when memory has the answer — a plain poll of a live or settled prompt costs no promise. */
  private answerNow(
    sessionId: string,
    promptId: string | undefined,
    params: TurnWaitParams,
    span: TurnSpan | undefined,
  ): string | Promise<string> {
    const wait = parseWaitRequest(params.waitMs, params.prefer, this.waits.maxWaitMs);
    if (wait.preferenceApplied !== undefined) {
      this.adapterHost.httpAdapter.setHeader(params.response, 'Preference-Applied', `wait=${wait.preferenceApplied}`);
    }
    if (wait.waitMs === 0) {
      const known = this.waits.peek(sessionId, promptId);
      if (known) return this.send(known, params, 'memory', span);
      return this.waits.answer({ sessionId, promptId, waitMs: 0 }).then((status) => this.send(status, params, 'scan', span));
    }
    return this.held(sessionId, promptId, wait.waitMs, params, span);
  }

  /**
   * A held request counts once, when it answers: `scan` when memory could not
   * answer it as it arrived (wake-ups are bridge transitions, read from
   * memory), `not_modified` on a 304.
   */
  private async held(
    sessionId: string,
    promptId: string | undefined,
    waitMs: number,
    params: TurnWaitParams,
    span: TurnSpan | undefined,
  ): Promise<string> {
    const source: PollSource = this.waits.peek(sessionId, promptId) ? 'memory' : 'scan';
    const gone = new ClientGone(params.response);
    let status: TurnStatus;
    try {
      status = await this.waits.answer({ sessionId, promptId, waitMs, ifNoneMatch: params.ifNoneMatch, signal: gone });
    } finally {
      gone.done();
    }
    return this.send(status, params, source, span);
  }

  /** Sets the turn routes' headers and returns the body, or answers 304 (headers set, no body). */
  private send(status: TurnStatus, params: TurnWaitParams, source: PollSource, span: TurnSpan | undefined): string {
    const response = turnStatusResponse(status, params.ifNoneMatch);
    const adapter = this.adapterHost.httpAdapter;
    for (const name in response.headers) adapter.setHeader(params.response, name, response.headers[name]!);
    const answered = response.notModified ? 'not_modified' : source;
    TURNS_CHANNELS.poll.publish(answered);
    if (span) {
      span.setAttribute('turns.state', status.state);
      span.setAttribute('turns.source', answered);
    }
    if (response.notModified) throw new NotModifiedException(response.etag);
    return response.body;
  }

  /** A 404 (no such session or prompt) is a `not_found` answer; the span records any failure but a 304. */
  private failed(error: unknown, span: TurnSpan | undefined): unknown {
    if (error instanceof NotModifiedException) {
      endSpan(span);
      return error;
    }
    if (error instanceof ApiException && error.getStatus() === 404) {
      TURNS_CHANNELS.poll.publish('not_found');
      span?.setAttribute('turns.source', 'not_found');
    }
    endSpan(span, error);
    return error;
  }
}
