import { Controller, Headers, Param, Res, Sse, UseGuards, type MessageEvent, UseFilters, UsePipes } from '@nestjs/common';
import { ApiErrorResponses } from '../common/api-error-responses.decorator.js';
import { ApiExceptionFilter } from '../common/api-exception.filter.js';
import { createValidationPipe } from '../common/validation.pipe.js';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOkResponse, ApiTags, ApiHeader, ApiOperation } from '../common/swagger.js';
import { concat, finalize, map, of, type Observable } from 'rxjs';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { SessionEventBus } from './session-event-bus.js';
import { parseLastEventId } from './last-event-id.js';

/** Reconnection delay advertised to EventSource clients. */
const RETRY_MS = 3000;

/**
 * The session's SSE stream, served by Nest's own SSE support on either
 * adapter. The first frame carries `retry:` and the id the stream resumes
 * from, so a client reconnecting with `Last-Event-ID` loses nothing still in
 * the replay ring.
 */
@ApiTags('events')
@Controller('session/:id')
@UsePipes(createValidationPipe())
@UseFilters(ApiExceptionFilter)
export class EventsController {
  constructor(
    private readonly events: SessionEventBus,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @ApiOperation({ summary: 'Stream the session events (SSE)', operationId: 'streamSessionEvents' })
  @ApiErrorResponses('invalid_client_id', 'session_not_found', 'too_many_streams')
  @Sse('events')
  @UseGuards(ClientIdGuard)
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'Resume after this event id (a safe integer; any other value is ignored).',
  })
  @ApiOkResponse({ description: 'text/event-stream of session events; header X-Qwen-Event-Epoch.' })
  stream(
    @Param('id') sessionId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res({ passthrough: true }) response: unknown,
  ): Observable<MessageEvent> {
    this.adapterHost.httpAdapter.setHeader(response, 'X-Qwen-Event-Epoch', this.events.epoch);
    const after = parseLastEventId(lastEventId);
    const resumeFrom = after ?? this.events.lastEventId(sessionId);
    // A frame with only `id` and `retry` dispatches no event: it sets the
    // client's reconnection delay and resume point. Nest's type wants `data`.
    const opening = { id: String(resumeFrom), retry: RETRY_MS } as MessageEvent;
    const release = this.events.reserveStream(sessionId);
    return concat(
      of(opening),
      this.events.subscribe(sessionId, after).pipe(map((event): MessageEvent => ({ id: String(event.id), type: event.type, data: event }))),
    ).pipe(finalize(release));
  }
}
