import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { OPT_IN_TURN_WEBHOOK_EVENT_TYPES, TURN_WEBHOOK_EVENT_TYPES, type TurnWebhookEventType } from './turn-webhook-event.js';
import type { DeliveryLogEntry } from './webhook-delivery.js';
import type { ListedWebhook } from './webhook-subscription.js';

const TYPES = [...TURN_WEBHOOK_EVENT_TYPES, ...OPT_IN_TURN_WEBHOOK_EVENT_TYPES];
const EVENTS = [...TYPES, 'turn.*'];
const WEBHOOK_ID = 'wh_2f0e6c1e-3c1d-4b8e-9d51-0d6f4c1b2a39';

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://ci.example.com/hooks/turns', maxLength: 2048, description: 'http(s); checked by the SSRF guard.' })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiPropertyOptional({
    enum: EVENTS,
    isArray: true,
    description:
      'Default: turn.completed, turn.cancelled, turn.error; `turn.*` adds turn.started; turn.permission_requested only when named.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EVENTS.length)
  @IsIn(EVENTS, { each: true })
  events?: string[];

  @ApiPropertyOptional({ description: 'Sent as `Authorization: Bearer <token>` with every delivery; never listed.', maxLength: 4096 })
  @IsOptional()
  @IsString()
  @Matches(/^[\x21-\x7e]{1,4096}$/)
  token?: string;
}

export class WebhookDto implements ListedWebhook {
  @ApiProperty({ example: WEBHOOK_ID }) webhookId!: string;
  @ApiProperty({ example: 'https://ci.example.com/hooks/turns' }) url!: string;
  @ApiProperty({ enum: TYPES, isArray: true }) events!: TurnWebhookEventType[];
  @ApiProperty({ description: 'Epoch ms.' }) createdAt!: number;
  @ApiPropertyOptional({ enum: [true], description: 'Present when a token is sent (the token itself is never listed).' }) hasToken?: true;
  @ApiPropertyOptional({ description: 'Set when the receiver answered 410 Gone: nothing more is sent (epoch ms).' }) disabledAt?: number;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ description: 'The signing secret (`whsec_` + base64 of 32 bytes), shown in this answer only.', example: 'whsec_…' })
  secret!: string;
}

export class WebhooksDto {
  @ApiProperty({ type: [WebhookDto] }) webhooks!: WebhookDto[];
}

export class DeliveryDto implements DeliveryLogEntry {
  @ApiProperty({ description: 'Also the `webhook-id` header, the same on every attempt.' }) deliveryId!: string;
  @ApiProperty({ enum: TYPES }) type!: TurnWebhookEventType;
  @ApiProperty() promptId!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] }) state!: 'pending' | 'delivered' | 'failed';
  @ApiPropertyOptional({ description: 'HTTP status of the last attempt.' }) lastStatus?: number;
  @ApiPropertyOptional({ description: 'Why the last attempt got no answer (e.g. timeout, ECONNREFUSED, webhook_url_forbidden).' })
  lastError?: string;
  @ApiPropertyOptional({ description: 'Epoch ms of the next attempt, while pending.' }) nextAttemptAt?: number;
}

export class DeliveriesDto {
  @ApiProperty({ type: [DeliveryDto] }) deliveries!: DeliveryDto[];
}
