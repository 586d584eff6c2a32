import { Body, Controller, Delete, HttpCode, Param, Post, UseGuards, UseFilters, UsePipes } from '@nestjs/common';
import { ApiExceptionFilter } from '../common/api-exception.filter.js';
import { createValidationPipe } from '../common/validation.pipe.js';
import { ApiOkResponse, ApiNoContentResponse, ApiTags, ApiOperation } from '../common/swagger.js';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { ApiErrorResponses } from '../common/api-error-responses.decorator.js';
import { CreatedSessionDto, CreateSessionDto, ForkedSessionDto, LoadedSessionDto, RewindDto, RewoundDto } from './session.dto.js';
import type { CreatedSession } from '../common/wire-types.js';
import { IDEMPOTENCY_ERRORS, IDEMPOTENT_REPLAYED_RESPONSE_HEADERS, IdempotentRoute } from '../idempotency/idempotent-route.decorator.js';
import { SessionsService } from './sessions.service.js';

@ApiTags('sessions')
@Controller('session')
@UsePipes(createValidationPipe())
@UseFilters(ApiExceptionFilter)
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @ApiOperation({ summary: 'Create a session, or attach to the live one of a workspace', operationId: 'createSession' })
  @Post()
  @HttpCode(200)
  @IdempotentRoute('session', 200)
  @ApiOkResponse({ type: CreatedSessionDto, headers: IDEMPOTENT_REPLAYED_RESPONSE_HEADERS })
  @ApiErrorResponses(
    'workspace_mismatch',
    'invalid_session_id',
    'invalid_request',
    'invalid_json',
    'session_on_other_node',
    'too_many_sessions',
    'cluster_unavailable',
    ...IDEMPOTENCY_ERRORS,
  )
  create(@Body() body: CreateSessionDto = {}): Promise<CreatedSession> {
    return this.sessions.create(body ?? {});
  }

  @ApiOperation({ summary: 'Make a persisted session live again', operationId: 'loadSession' })
  @Post(':id/load')
  @HttpCode(200)
  @ApiOkResponse({ type: LoadedSessionDto })
  @ApiErrorResponses('session_not_found', 'transcript_unavailable', 'transcript_too_large', 'too_many_sessions', 'cluster_unavailable')
  load(@Param('id') sessionId: string): Promise<LoadedSessionDto> {
    return this.sessions.load(sessionId);
  }

  @ApiOperation({ summary: 'Rewind the active chain to before a prompt', operationId: 'rewindSession' })
  @Post(':id/rewind')
  @HttpCode(200)
  @UseGuards(ClientIdGuard)
  @ApiOkResponse({ type: RewoundDto })
  @ApiErrorResponses(
    'invalid_client_id',
    'invalid_request',
    'session_not_found',
    'prompt_not_found',
    'session_busy',
    'transcript_too_large',
  )
  async rewind(@Param('id') sessionId: string, @Body() body: RewindDto): Promise<RewoundDto> {
    await this.sessions.rewind(sessionId, body.promptId);
    return { rewound: true };
  }

  @ApiOperation({ summary: 'Fork the active chain into a new live session', operationId: 'forkSession' })
  @Post(':id/fork')
  @HttpCode(200)
  @UseGuards(ClientIdGuard)
  @ApiOkResponse({ type: ForkedSessionDto })
  @ApiErrorResponses('invalid_client_id', 'session_not_found', 'cluster_unavailable')
  fork(@Param('id') sessionId: string): Promise<ForkedSessionDto> {
    return this.sessions.fork(sessionId);
  }

  @ApiOperation({ summary: 'Close a session', operationId: 'closeSession' })
  @Delete(':id')
  @HttpCode(204)
  @UseGuards(ClientIdGuard)
  @ApiNoContentResponse({ description: 'Closed; pending prompts end in error (session_closed).' })
  @ApiErrorResponses('invalid_client_id', 'session_not_found')
  async close(@Param('id') sessionId: string): Promise<void> {
    await this.sessions.close(sessionId);
  }
}
