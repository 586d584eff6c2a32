import { Body, Controller, HttpCode, Param, Post, Req, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '../common/swagger.js';
import { ClientId } from '../client-id/client-id.decorator.js';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { ApiExceptionFilter } from '../errors/api-exception.filter.js';
import { principalOf } from '../http/request-principal.js';
import { createValidationPipe } from '../validation/validation.pipe.js';
import { PermissionBroker } from './permission-broker.js';
import { PermissionAnswerDto, PermissionAnsweredDto } from './permission.dto.js';
import { PermissionRequestGuard } from './permission-request.guard.js';

const ANSWER_ERRORS = [
  'invalid_request',
  'invalid_json',
  'invalid_client_id',
  'permission_option_not_offered',
  'permission_forbidden',
  'permission_not_found',
] as const;

/** Answers to an agent's requests for approval (docs/permissions.md): the first answer wins, a later one is a `404`. */
@ApiTags('permissions')
@Controller()
@UsePipes(createValidationPipe())
@UseFilters(ApiExceptionFilter)
export class PermissionsController {
  constructor(private readonly broker: PermissionBroker) {}

  @ApiOperation({ summary: "Answer a request for approval of the session's running turn", operationId: 'answerSessionPermission' })
  @Post('session/:id/permission/:requestId')
  @UseGuards(ClientIdGuard)
  @HttpCode(200)
  @ApiOkResponse({ type: PermissionAnsweredDto })
  @ApiErrorResponses('session_not_found', ...ANSWER_ERRORS)
  answerInSession(
    @Param('id') sessionId: string,
    @Param('requestId') requestId: string,
    @Body() body: PermissionAnswerDto,
    @Req() request: object,
    @ClientId() clientId?: string,
  ): PermissionAnsweredDto {
    this.broker.answer(requestId, body.outcome, clientId, sessionId, principalOf(request)?.name);
    return {};
  }

  @ApiOperation({ summary: 'Answer a request for approval by its id alone (the peer’s route)', operationId: 'answerPermission' })
  @Post('permission/:requestId')
  @UseGuards(PermissionRequestGuard)
  @HttpCode(200)
  @ApiOkResponse({ type: PermissionAnsweredDto })
  @ApiErrorResponses(...ANSWER_ERRORS)
  answer(
    @Param('requestId') requestId: string,
    @Body() body: PermissionAnswerDto,
    @Req() request: object,
    @ClientId() clientId?: string,
  ): PermissionAnsweredDto {
    this.broker.answer(requestId, body.outcome, clientId, undefined, principalOf(request)?.name);
    return {};
  }
}
