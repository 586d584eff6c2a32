import { Controller, Param } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { NotModifiedException } from '../common/not-modified.exception.js';
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

  /** The body (headers set), at once when memory has the answer — a plain poll of a live or settled prompt costs no promise. */
  private answer(sessionId: string, promptId: string | undefined, params: TurnWaitParams): string | Promise<string> {
    const wait = parseWaitRequest(params.waitMs, params.prefer, this.waits.maxWaitMs);
    if (wait.preferenceApplied !== undefined) {
      this.adapterHost.httpAdapter.setHeader(params.response, 'Preference-Applied', `wait=${wait.preferenceApplied}`);
    }
    if (wait.waitMs === 0) {
      const known = this.waits.peek(sessionId, promptId);
      if (known) return this.send(known, params);
      return this.waits.answer({ sessionId, promptId, waitMs: 0 }).then((status) => this.send(status, params));
    }
    return this.held(sessionId, promptId, wait.waitMs, params);
  }

  private async held(sessionId: string, promptId: string | undefined, waitMs: number, params: TurnWaitParams): Promise<string> {
    const gone = new ClientGone(params.response);
    let status: TurnStatus;
    try {
      status = await this.waits.answer({ sessionId, promptId, waitMs, ifNoneMatch: params.ifNoneMatch, signal: gone });
    } finally {
      gone.done();
    }
    return this.send(status, params);
  }

  /** Sets the turn routes' headers and returns the body, or answers 304 (headers set, no body). */
  private send(status: TurnStatus, params: TurnWaitParams): string {
    const response = turnStatusResponse(status, params.ifNoneMatch);
    const adapter = this.adapterHost.httpAdapter;
    for (const name in response.headers) adapter.setHeader(params.response, name, response.headers[name]!);
    if (response.notModified) throw new NotModifiedException(response.etag);
    return response.body;
  }
}
