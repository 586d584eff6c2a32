import { Body, Controller, Delete, HttpCode, Param, Post, UseGuards, UseFilters, UsePipes } from '@nestjs/common';
import { ApiExceptionFilter } from '../common/api-exception.filter.js';
import { createValidationPipe } from '../common/validation.pipe.js';
import {
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiBadRequestResponse,
  ApiNoContentResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ClientIdGuard } from '../clients/client-id.guard.js';
import { ErrorResponseDto } from '../common/error-response.dto.js';
import { CreatedSessionDto, CreateSessionDto, ForkedSessionDto, LoadedSessionDto, RewindDto, RewoundDto } from './session.dto.js';
import { SessionsService, type CreatedSession } from './sessions.service.js';

@ApiTags('sessions')
@Controller('session')
@UsePipes(createValidationPipe())
@UseFilters(ApiExceptionFilter)
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: CreatedSessionDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'workspace_mismatch, invalid_session_id, invalid_request' })
  create(@Body() body: CreateSessionDto = {}): Promise<CreatedSession> {
    return this.sessions.create(body ?? {});
  }

  @Post(':id/load')
  @HttpCode(200)
  @ApiOkResponse({ type: LoadedSessionDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'session_not_found' })
  load(@Param('id') sessionId: string): Promise<LoadedSessionDto> {
    return this.sessions.load(sessionId);
  }

  @Post(':id/rewind')
  @HttpCode(200)
  @UseGuards(ClientIdGuard)
  @ApiOkResponse({ type: RewoundDto })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'session_busy' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'session_not_found, prompt_not_found' })
  async rewind(@Param('id') sessionId: string, @Body() body: RewindDto): Promise<RewoundDto> {
    await this.sessions.rewind(sessionId, body.promptId);
    return { rewound: true };
  }

  @Post(':id/fork')
  @HttpCode(200)
  @UseGuards(ClientIdGuard)
  @ApiOkResponse({ type: ForkedSessionDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'session_not_found' })
  fork(@Param('id') sessionId: string): Promise<ForkedSessionDto> {
    return this.sessions.fork(sessionId);
  }

  @Delete(':id')
  @HttpCode(204)
  @UseGuards(ClientIdGuard)
  @ApiNoContentResponse({ description: 'Closed; pending prompts end in error (session_closed).' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'session_not_found' })
  async close(@Param('id') sessionId: string): Promise<void> {
    await this.sessions.close(sessionId);
  }
}
