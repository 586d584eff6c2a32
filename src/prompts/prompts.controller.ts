import { Body, Controller, Delete, Get, HttpCode, Optional, Param, Post, Req, UseGuards, UseFilters, UsePipes } from '@nestjs/common';
import { ApiExceptionFilter } from '../errors/api-exception.filter.js';
import { principalOf } from '../http/request-principal.js';
import { createValidationPipe } from '../validation/validation.pipe.js';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '../common/swagger.js';
import { ClientId } from '../client-id/client-id.decorator.js';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { originatorSeenBy } from '../client-id/client-pseudonym.js';
import type { PromptBlock } from '../turns/rules/turn-fields.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { AdmittedPromptDto, PendingPromptsDto, PromptRequestDto, RemovedDto } from './prompt.dto.js';
import type { AdmittedPrompt } from '../wire/wire-types.js';
import type { AdmissionIdempotency } from '../idempotency/idempotency.interceptor.js';
import {
  AdmissionKey,
  IDEMPOTENCY_ERRORS,
  IDEMPOTENT_REPLAYED_RESPONSE_HEADERS,
  IdempotentRoute,
} from '../idempotency/idempotent-route.decorator.js';
import { PromptLedger } from '../ledger/prompt-ledger.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';

/** Prompt admission and the live queue of one session. */
@ApiTags('prompts')
@Controller('session/:id')
@UseGuards(ClientIdGuard)
@UsePipes(createValidationPipe())
@UseFilters(ApiExceptionFilter)
export class PromptsController {
  constructor(
    private readonly bridge: PromptBridge,
    @Optional() private readonly ledger?: PromptLedger,
  ) {}

  @ApiOperation({ summary: 'Admit a prompt into the session FIFO', operationId: 'admitPrompt' })
  @Post('prompt')
  @HttpCode(202)
  @IdempotentRoute('prompt', 202)
  @ApiAcceptedResponse({ type: AdmittedPromptDto, headers: IDEMPOTENT_REPLAYED_RESPONSE_HEADERS })
  @ApiErrorResponses(
    'invalid_request',
    'invalid_json',
    'invalid_deadline_ms',
    'invalid_max_tokens',
    'invalid_client_id',
    'client_id_required',
    'session_not_found',
    'session_busy',
    'prompt_queue_full',
    'prompt_too_large',
    'payload_too_large',
    'session_fenced',
    'ledger_unavailable',
    ...IDEMPOTENCY_ERRORS,
  )
  async prompt(
    @Param('id') sessionId: string,
    @Body() body: PromptRequestDto,
    @Req() request: object,
    @ClientId() clientId?: string,
    @AdmissionKey() idempotency?: AdmissionIdempotency,
  ): Promise<AdmittedPrompt> {
    const admitted = this.bridge.admit(sessionId, body.prompt as PromptBlock[], clientId, body.deadlineMs, idempotency, {
      principal: principalOf(request)?.name,
      maxTokens: body.maxTokens,
    });
    // The 202 waits for the ledger's in_flight record, written under this node's fence and synced: a node killed, or
    // fenced, right after it leaves the prompt findable by the next owner. Otherwise a 503 (the key is freed).
    await this.ledger?.admitted(sessionId, admitted.promptId);
    return admitted;
  }

  @ApiOperation({ summary: 'List the running and queued prompts', operationId: 'listPendingPrompts' })
  @ApiErrorResponses('invalid_client_id', 'session_not_found')
  @Get('pending-prompts')
  @ApiOkResponse({ type: PendingPromptsDto })
  pending(@Param('id') sessionId: string, @ClientId() clientId?: string): PendingPromptsDto {
    return { pendingPrompts: this.bridge.pendingPrompts(sessionId).map((prompt) => originatorSeenBy(sessionId, prompt, clientId)) };
  }

  @ApiOperation({ summary: 'Remove a pending prompt', operationId: 'removePendingPrompt' })
  @ApiErrorResponses('invalid_client_id', 'session_not_found')
  @Delete('pending-prompts/:promptId')
  @ApiOkResponse({ type: RemovedDto })
  remove(@Param('id') sessionId: string, @Param('promptId') promptId: string): RemovedDto {
    return { removed: this.bridge.remove(sessionId, promptId) };
  }

  @ApiOperation({ summary: 'Cancel the running prompt', operationId: 'cancelRunningPrompt' })
  @ApiErrorResponses('invalid_client_id', 'session_not_found')
  @Post('cancel')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Cancels the running prompt, if any; queued prompts still run.' })
  cancel(@Param('id') sessionId: string): void {
    this.bridge.cancelRunning(sessionId);
  }
}
