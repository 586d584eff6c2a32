import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '../common/swagger.js';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { apiError } from '../errors/api-errors.js';
import { ApiExceptionFilter } from '../errors/api-exception.filter.js';
import { createValidationPipe } from '../validation/validation.pipe.js';
import { DEFAULT_TURN_WEBHOOK_EVENTS, OPT_IN_TURN_WEBHOOK_EVENT_TYPES, TURN_WEBHOOK_EVENT_TYPES } from './turn-webhook-event.js';
import { generateWebhookSecret } from './webhook-secret.js';
import { WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks.settings.js';
import { listedWebhook, wantedEvents } from './webhook-subscription.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookSubscriptions } from './webhook-subscriptions.service.js';
import { checkWebhookUrl, ForbiddenWebhookUrl } from './webhook-url-guard.js';
import { CreatedWebhookDto, CreateWebhookDto, DeliveriesDto, WebhooksDto } from './webhook.dto.js';

/** A session's turn webhooks (docs/webhooks.md), behind the same guard as every session route. */
@ApiTags('webhooks')
@Controller('session/:id/webhooks')
@UseGuards(ClientIdGuard)
@UsePipes(createValidationPipe())
@UseFilters(ApiExceptionFilter)
export class WebhooksController {
  constructor(
    private readonly subscriptions: WebhookSubscriptions,
    private readonly dispatcher: WebhookDispatcher,
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
  ) {}

  @ApiOperation({ summary: 'Subscribe a URL to the turns of this session (the secret is shown once, here)', operationId: 'createWebhook' })
  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  @ApiErrorResponses(
    'invalid_request',
    'invalid_json',
    'webhook_url_forbidden',
    'invalid_client_id',
    'session_not_found',
    'too_many_webhooks',
  )
  async create(@Param('id') sessionId: string, @Body() body: CreateWebhookDto): Promise<CreatedWebhookDto> {
    try {
      await checkWebhookUrl(body.url, this.settings.policy, this.settings.resolver);
    } catch (error) {
      throw error instanceof ForbiddenWebhookUrl ? error.toApiError() : error;
    }
    const events = wantedEvents(body.events, TURN_WEBHOOK_EVENT_TYPES, DEFAULT_TURN_WEBHOOK_EVENTS, OPT_IN_TURN_WEBHOOK_EVENT_TYPES);
    const stored = await this.subscriptions.add(sessionId, { url: body.url, events, secret: generateWebhookSecret(), token: body.token });
    return { ...listedWebhook(stored), secret: stored.secret };
  }

  @ApiOperation({ summary: 'List the subscriptions (never their secrets or tokens)', operationId: 'listWebhooks' })
  @Get()
  @ApiOkResponse({ type: WebhooksDto })
  @ApiErrorResponses('invalid_client_id', 'session_not_found')
  async list(@Param('id') sessionId: string): Promise<WebhooksDto> {
    return { webhooks: (await this.subscriptions.list(sessionId)).map(listedWebhook) };
  }

  @ApiOperation({ summary: 'Remove a subscription; its pending deliveries are dropped', operationId: 'deleteWebhook' })
  @Delete(':webhookId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrorResponses('invalid_client_id', 'session_not_found', 'webhook_not_found')
  async remove(@Param('id') sessionId: string, @Param('webhookId') webhookId: string): Promise<void> {
    if (!(await this.subscriptions.remove(sessionId, webhookId))) throw apiError('webhook_not_found', { sessionId, webhookId });
  }

  @ApiOperation({ summary: 'The last 50 deliveries of a subscription', operationId: 'listWebhookDeliveries' })
  @Get(':webhookId/deliveries')
  @ApiOkResponse({ type: DeliveriesDto })
  @ApiErrorResponses('invalid_client_id', 'session_not_found', 'webhook_not_found')
  async deliveries(@Param('id') sessionId: string, @Param('webhookId') webhookId: string): Promise<DeliveriesDto> {
    const known = (await this.subscriptions.list(sessionId)).some((w) => w.webhookId === webhookId);
    if (!known) throw apiError('webhook_not_found', { sessionId, webhookId });
    return { deliveries: this.dispatcher.deliveries(sessionId, webhookId) };
  }
}
