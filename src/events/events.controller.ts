import { Controller, Headers, Param, Res, Sse, UseGuards, type MessageEvent, UseFilters, UsePipes, Optional, Inject } from '@nestjs/common';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { ApiExceptionFilter } from '../errors/api-exception.filter.js';
import { createValidationPipe } from '../validation/validation.pipe.js';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOkResponse, ApiTags, ApiHeader, ApiOperation, ApiProduces } from '../common/swagger.js';
import { randomUUID } from 'node:crypto';
import { concat, finalize, map, of, type Observable } from 'rxjs';
import { ClientId } from '../client-id/client-id.decorator.js';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { EVENT_OPTIONS, SSE_HEARTBEAT_MS, type EventOptions } from './events.settings.js';
import { SessionEventBus } from './session-event-bus.js';
import { parseLastEventId } from './last-event-id.js';
import { withHeartbeat } from './with-heartbeat.js';

/** Reconnection delay advertised to EventSource clients. */
const RETRY_MS = 3000;

const STREAM_DESCRIPTION = [
  "text/event-stream. Headers `X-Qwen-Event-Epoch` (this session's epoch) and `X-Qwen-SSE-Stream-Id` (a UUID per stream).",
  'Opens with `retry: 3000`; frames `id: N`, `event: <type>`, `data: {id, v:1, type, promptId?, data, originatorClientId?, _meta}`;',
  'a client is named by its own id only to itself (the stream request carries it), to everyone else by a `~` pseudonym;',
  'a `: heartbeat` comment every 15 s.',
  'Types and `data`: `session_update` `{sessionId, update:{sessionUpdate, content, ...}}` (the prompt is echoed as `user_message_chunk`);',
  '`pending_prompt_added` `{sessionId, promptId, text, queuedAt}` and `pending_prompt_started` `{sessionId, promptId, text}` for prompts that waited;',
  '`pending_prompt_completed` `{sessionId, promptId, state:"completed"|"removed"}` for those prompts;',
  '`turn_complete` (the settled turn status, with `sessionId, promptId, stopReason`); `turn_error` (with `sessionId, promptId, message, code`);',
  '`prompt_cancelled` `{sessionId, promptId}`; `session_rewound` `{sessionId, promptId, targetTurnIndex, filesChanged, filesFailed}`.',
  'With `Last-Event-ID`: a replay closed by `replay_complete` `{lastReplayedEventId, lastEventId, replayedCount}` (no `id` in `data`);',
  'a cursor of another epoch (`X-Qwen-Event-Epoch`) or older than the ring opens with `state_resync_required`',
  '`{reason:"epoch_reset"|"ring_evicted", lastDeliveredId, earliestAvailableId}`, then live events.',
].join(' ');

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
    @Optional() @Inject(EVENT_OPTIONS) private readonly options?: EventOptions,
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
  @ApiHeader({
    name: 'X-Qwen-Event-Epoch',
    required: false,
    description: 'The epoch the Last-Event-ID belongs to; another epoch opens with state_resync_required (epoch_reset).',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: STREAM_DESCRIPTION,
    headers: {
      'X-Qwen-Event-Epoch': { description: "This session's event epoch.", schema: { type: 'string' } },
      'X-Qwen-SSE-Stream-Id': { description: 'A UUID naming this stream.', schema: { type: 'string', format: 'uuid' } },
    },
  })
  stream(
    @Param('id') sessionId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Headers('x-qwen-event-epoch') epoch: string | undefined,
    @Res({ passthrough: true }) response: unknown,
    @ClientId() clientId?: string,
  ): Observable<MessageEvent> {
    const adapter = this.adapterHost.httpAdapter;
    adapter.setHeader(response, 'X-Qwen-Event-Epoch', this.events.epochOf(sessionId));
    adapter.setHeader(response, 'X-Qwen-SSE-Stream-Id', randomUUID());
    const after = parseLastEventId(lastEventId);
    const resumeFrom = after ?? this.events.lastEventId(sessionId);
    // A frame with only `id` and `retry` dispatches no event: it sets the
    // client's reconnection delay and resume point. Nest's type wants `data`.
    const opening = { id: String(resumeFrom), retry: RETRY_MS } as MessageEvent;
    const release = this.events.reserveStream(sessionId);
    const frames = this.events
      .resume(sessionId, after, epoch || undefined)
      .pipe(
        map(({ sseId, frame }): MessageEvent => ({ id: String(sseId), type: frame.type, data: this.events.frameFor(frame, clientId) })),
      );
    const heartbeatMs = this.options?.sseHeartbeatMs ?? SSE_HEARTBEAT_MS;
    const beat = (): MessageEvent => ({ comment: 'heartbeat' });
    return withHeartbeat(concat(of(opening), frames), heartbeatMs, beat).pipe(finalize(release));
  }
}
