import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { Type } from 'class-transformer';
import { Equals, IsArray, IsObject, IsString, ValidateNested } from 'class-validator';
import { LimitedText, TrueFlag } from './dto-fields.js';
import { INTERACTION_LIMITS } from './rules/limits.js';
import type { PendingInteraction, PendingInteractionOption } from './turn-status.js';

/** @publicApi */
export class PendingInteractionOptionDto implements PendingInteractionOption {
  @LimitedText(INTERACTION_LIMITS.optionId, { required: true, example: 'proceed_once' })
  optionId!: string;

  @LimitedText(INTERACTION_LIMITS.label, { example: 'Allow once' })
  label?: string;

  @LimitedText(INTERACTION_LIMITS.label, {
    required: true,
    description: "ACP's kind: allow_once, allow_always, reject_once, reject_always.",
    example: 'allow_once',
  })
  kind!: string;
}

/** The tool call a pending request is about, as the agent described it. @publicApi */
export class PendingInteractionActionDto {
  @LimitedText(INTERACTION_LIMITS.label, { description: "The tool's kind (ACP: read, edit, execute, ...).", example: 'execute' })
  type?: string;

  @LimitedText(INTERACTION_LIMITS.title, { example: 'echo ran > marker.txt' })
  title?: string;

  @ApiPropertyOptional({ description: "The tool call's content, as the agent sent it (dropped when the item would pass 16 KiB)." })
  content?: unknown;

  @ApiPropertyOptional({ description: 'The files it touches, as the agent sent them.' })
  locations?: unknown;

  @ApiPropertyOptional({ description: "The tool's input, as the agent sent it (dropped when the item would pass 16 KiB)." })
  input?: unknown;
}

/**
 * A tool call the running turn waits on approval for (docs/permissions.md).
 *
 * @publicApi
 */
export class PendingInteractionDto implements PendingInteraction {
  @ApiProperty({
    description: 'The id a client answers the request by (docs/permissions.md).',
    example: '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a.4f1c2a9b0d3e5f67',
  })
  @IsString()
  requestId!: string;

  @ApiProperty({ enum: ['permission'] })
  @Equals('permission')
  kind!: 'permission';

  @ApiProperty({ format: 'date-time' })
  @IsString()
  createdAt!: string;

  @ApiProperty({ type: () => PendingInteractionActionDto })
  @IsObject()
  @ValidateNested()
  @Type(() => PendingInteractionActionDto)
  action!: PendingInteractionActionDto;

  @ApiProperty({ type: () => [PendingInteractionOptionDto], maxItems: INTERACTION_LIMITS.options })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => PendingInteractionOptionDto)
  options!: PendingInteractionOptionDto[];

  @TrueFlag(
    'Something the agent sent was left out: an option whose id no answer could name or past the 16th, or, to keep the item within 16 KiB, content, input, locations, the end of the title, the labels or the last options.',
  )
  truncated?: true;
}
