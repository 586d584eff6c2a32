import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards, UseFilters, UsePipes } from '@nestjs/common';
import { ApiExceptionFilter } from '../common/api-exception.filter.js';
import { createValidationPipe } from '../common/validation.pipe.js';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiNoContentResponse, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ClientId } from '../clients/client-id.decorator.js';
import { ClientIdGuard } from '../clients/client-id.guard.js';
import type { PromptBlock } from '../common/turn-fields.js';
import { ErrorResponseDto } from '../common/error-response.dto.js';
import { AdmittedPromptDto, PendingPromptsDto, PromptRequestDto, RemovedDto } from './prompt.dto.js';
import { PromptBridge, type AdmittedPrompt } from './prompt-bridge.js';

/** Prompt admission and the live queue of one session. */
@ApiTags('prompts')
@Controller('session/:id')
@UseGuards(ClientIdGuard)
@UsePipes(createValidationPipe())
@UseFilters(ApiExceptionFilter)
export class PromptsController {
  constructor(private readonly bridge: PromptBridge) {}

  @Post('prompt')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: AdmittedPromptDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'invalid_request, invalid_json, invalid_deadline_ms, invalid_client_id' })
  @ApiResponse({ status: 503, type: ErrorResponseDto, description: 'prompt_queue_full (with Retry-After)' })
  prompt(@Param('id') sessionId: string, @Body() body: PromptRequestDto, @ClientId() clientId?: string): AdmittedPrompt {
    return this.bridge.admit(sessionId, body.prompt as PromptBlock[], clientId, body.deadlineMs);
  }

  @Get('pending-prompts')
  @ApiOkResponse({ type: PendingPromptsDto })
  pending(@Param('id') sessionId: string): PendingPromptsDto {
    return { pendingPrompts: this.bridge.pendingPrompts(sessionId) };
  }

  @Delete('pending-prompts/:promptId')
  @ApiOkResponse({ type: RemovedDto })
  remove(@Param('id') sessionId: string, @Param('promptId') promptId: string): RemovedDto {
    return { removed: this.bridge.remove(sessionId, promptId) };
  }

  @Post('cancel')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Cancels the running prompt, if any; queued prompts still run.' })
  cancel(@Param('id') sessionId: string): void {
    this.bridge.cancelRunning(sessionId);
  }
}
