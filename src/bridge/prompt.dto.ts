import type { AdmittedPrompt, PendingPrompt } from '../common/wire-types.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsArray,
  IsObject,
  IsIn,
  IsInt,
  IsOptional,
  IsPositive,
  IsString,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/** One content block: `{type:"text", text}` or `{type:"image", data, mimeType}` (ACP's shapes). */
export class PromptBlockDto {
  @ApiProperty({ enum: ['text', 'image'] })
  @IsIn(['text', 'image'])
  type!: 'text' | 'image';

  @ApiPropertyOptional()
  @ValidateIf((block: PromptBlockDto) => block.type === 'text')
  @IsString()
  text?: string;

  @ApiPropertyOptional({ description: 'Base64 image data.' })
  @IsOptional()
  @IsString()
  data?: string;

  @ApiPropertyOptional({ example: 'image/png' })
  @IsOptional()
  @IsString()
  mimeType?: string;
}

export class PromptRequestDto {
  @ApiProperty({ type: [PromptBlockDto], minItems: 1 })
  @IsArray()
  @ArrayNotEmpty()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => PromptBlockDto)
  prompt!: PromptBlockDto[];

  @ApiPropertyOptional({ description: 'Narrows the server deadline (TURNS_PROMPT_DEADLINE_MS); ignored when none is set.', minimum: 1 })
  @IsOptional()
  @IsInt()
  @IsPositive()
  deadlineMs?: number;
}

export class AdmittedPromptDto implements AdmittedPrompt {
  @ApiProperty({ format: 'uuid' }) promptId!: string;
  @ApiProperty({ description: 'Id of the pending_prompt_added event; subscribe after it.' }) lastEventId!: number;
  @ApiProperty({ description: 'Event id space of this daemon process.' }) eventEpoch!: string;
}

export class PendingPromptDto implements PendingPrompt {
  @ApiProperty() promptId!: string;
  @ApiProperty() text!: string;
  @ApiProperty() queuedAt!: number;
  @ApiProperty({ enum: ['queued', 'running'] }) state!: 'queued' | 'running';
  @ApiPropertyOptional() originatorClientId?: string;
}

export class PendingPromptsDto {
  @ApiProperty({ type: [PendingPromptDto] }) pendingPrompts!: PendingPromptDto[];
}

export class RemovedDto {
  @ApiProperty() removed!: boolean;
}
