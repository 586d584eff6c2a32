import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards, UseFilters, UsePipes } from '@nestjs/common';
import { ApiExceptionFilter } from '../errors/api-exception.filter.js';
import { createValidationPipe } from '../validation/validation.pipe.js';
import { ApiOkResponse, ApiNoContentResponse, ApiTags, ApiOperation, ApiCreatedResponse } from '../common/swagger.js';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { ClientId } from '../client-id/client-id.decorator.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { apiError } from '../errors/api-errors.js';
import {
  BranchedSessionDto,
  BranchSessionDto,
  CreatedSessionDto,
  CreateSessionDto,
  ForkedSessionDto,
  ForkSessionDto,
  HeartbeatDto,
  LoadedSessionDto,
  RestoredSessionDto,
  RewindDto,
  RewindSnapshotsDto,
  RewoundDto,
  SessionStatusDto,
} from './session.dto.js';
import type { CreatedSession } from '../wire/wire-types.js';
import { IDEMPOTENCY_ERRORS, IDEMPOTENT_REPLAYED_RESPONSE_HEADERS, IdempotentRoute } from '../idempotency/idempotent-route.decorator.js';
import { SessionsService } from './sessions.service.js';
import { SessionRewindService } from './session-rewind.service.js';
import { SessionPresenceService } from './session-presence.service.js';
import { RequestPrincipal } from '../http/principal.decorator.js';
import type { Principal } from '../http/request-principal.js';

const RESTORE_ERRORS = [
  'session_not_found',
  'transcript_unavailable',
  'transcript_too_large',
  'too_many_sessions',
  'cluster_unavailable',
  'ledger_unavailable',
] as const;

@ApiTags('sessions')
@Controller('session')
@UsePipes(createValidationPipe())
@UseFilters(ApiExceptionFilter)
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly rewinds: SessionRewindService,
    private readonly presence: SessionPresenceService,
  ) {}

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
  create(@Body() body: CreateSessionDto = {}, @RequestPrincipal() principal?: Principal): Promise<CreatedSession> {
    return this.sessions.create(body ?? {}, principal);
  }

  @ApiOperation({ summary: 'Make a persisted session live again', operationId: 'loadSession' })
  @Post(':id/load')
  @HttpCode(200)
  @ApiOkResponse({ type: LoadedSessionDto })
  @ApiErrorResponses(...RESTORE_ERRORS)
  load(@Param('id') sessionId: string, @RequestPrincipal() principal?: Principal): Promise<LoadedSessionDto> {
    return this.sessions.load(sessionId, principal);
  }

  @ApiOperation({ summary: 'Make a persisted session live again, without the prompt ledger', operationId: 'resumeSession' })
  @Post(':id/resume')
  @HttpCode(200)
  @ApiOkResponse({ type: RestoredSessionDto })
  @ApiErrorResponses(...RESTORE_ERRORS)
  resume(@Param('id') sessionId: string, @RequestPrincipal() principal?: Principal): Promise<RestoredSessionDto> {
    return this.sessions.resume(sessionId, principal);
  }

  @ApiOperation({ summary: 'The turns a rewind can go back to, with their snapshot ids', operationId: 'getRewindSnapshots' })
  @Get(':id/rewind/snapshots')
  @UseGuards(ClientIdGuard)
  @ApiOkResponse({ type: RewindSnapshotsDto })
  @ApiErrorResponses('invalid_client_id', 'session_not_found', 'transcript_too_large')
  async snapshots(@Param('id') sessionId: string): Promise<RewindSnapshotsDto> {
    return { snapshots: await this.rewinds.snapshots(sessionId) };
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
  rewind(@Param('id') sessionId: string, @Body() body: RewindDto): Promise<RewoundDto> {
    return this.rewinds.rewind(sessionId, body.promptId);
  }

  @ApiOperation({ summary: 'Fork the active chain into a new live session', operationId: 'forkSession' })
  @Post(':id/fork')
  @HttpCode(200)
  @UseGuards(ClientIdGuard)
  @ApiOkResponse({ type: ForkedSessionDto })
  @ApiErrorResponses('invalid_client_id', 'invalid_request', 'session_not_found', 'fork_directive_unsupported', 'cluster_unavailable')
  fork(@Param('id') sessionId: string, @Body() body: ForkSessionDto = {}): Promise<ForkedSessionDto> {
    // The peer's /fork with a directive starts a background agent: never answered with a clone instead.
    if (body?.directive !== undefined) throw apiError('fork_directive_unsupported', { sessionId });
    return this.sessions.fork(sessionId);
  }

  @ApiOperation({ summary: 'Branch the active chain into a new live session (the peer’s shape of /fork)', operationId: 'branchSession' })
  @Post(':id/branch')
  @HttpCode(201)
  @UseGuards(ClientIdGuard)
  @ApiCreatedResponse({ type: BranchedSessionDto })
  @ApiErrorResponses('invalid_client_id', 'invalid_request', 'session_not_found', 'too_many_sessions', 'cluster_unavailable')
  branch(@Param('id') sessionId: string, @Body() _body: BranchSessionDto = {}): Promise<BranchedSessionDto> {
    return this.sessions.branch(sessionId) as Promise<BranchedSessionDto>;
  }

  @ApiOperation({ summary: 'The live session: clients, pending prompts, where its events stand', operationId: 'getSessionStatus' })
  @Get(':id/status')
  @UseGuards(ClientIdGuard)
  @ApiOkResponse({ type: SessionStatusDto })
  @ApiErrorResponses('invalid_client_id', 'session_not_found')
  status(@Param('id') sessionId: string): SessionStatusDto {
    return this.presence.status(sessionId);
  }

  @ApiOperation({ summary: 'Tell the session this client is still there', operationId: 'heartbeatSession' })
  @Post(':id/heartbeat')
  @HttpCode(200)
  @UseGuards(ClientIdGuard)
  @ApiOkResponse({ type: HeartbeatDto })
  @ApiErrorResponses('invalid_client_id', 'session_not_found')
  heartbeat(@Param('id') sessionId: string, @ClientId() clientId: string | undefined): HeartbeatDto {
    return this.presence.heartbeat(sessionId, clientId);
  }

  @ApiOperation({ summary: 'Unregister this client id; the session stays live', operationId: 'detachSession' })
  @Post(':id/detach')
  @HttpCode(204)
  @UseGuards(ClientIdGuard)
  @ApiNoContentResponse({ description: 'Detached; the client id is no longer registered on the session.' })
  @ApiErrorResponses('invalid_client_id', 'session_not_found')
  detach(@Param('id') sessionId: string, @ClientId() clientId: string | undefined): void {
    this.presence.detach(sessionId, clientId);
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
