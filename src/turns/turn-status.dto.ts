import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Equals, IsIn, IsInt, IsString, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';
import { RESULT_TEXT_TRUNCATED, TURN_LIMITS } from '../common/limits.js';
import type { TurnState } from './turn-status.js';

const STATES: TurnState[] = ['idle', 'queued', 'running', 'completed', 'cancelled', 'error'];

/**
 * Like `@IsOptional()`, but only `undefined` skips validation: the wire never
 * carries `null`, so a `null` field fails.
 */
const IsOptional = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

/** The error of a turn in state `error`. */
export class TurnErrorDto {
  @ApiProperty({ maxLength: TURN_LIMITS.errorMessage, description: 'Normalized message, cut to 4,096 UTF-16 code units.' })
  @IsString()
  @MaxLength(TURN_LIMITS.errorMessage)
  message!: string;

  @ApiPropertyOptional({ maxLength: TURN_LIMITS.errorCode, example: 'prompt_deadline_exceeded', description: 'String code; a JSON-RPC code reads as its decimal string ("-32603").' })
  @IsOptional()
  @IsString()
  @MaxLength(TURN_LIMITS.errorCode)
  code?: string;

  @ApiPropertyOptional({ enum: [true] })
  @IsOptional()
  @Equals(true)
  messageTruncated?: true;

  @ApiPropertyOptional({ enum: [true] })
  @IsOptional()
  @Equals(true)
  codeTruncated?: true;
}

/**
 * The state and raw final answer of one prompt. Optional fields are omitted
 * when absent (never `null`); flags appear only when `true`; times are epoch ms.
 */
export class TurnStatusDto {
  @ApiProperty()
  @IsString()
  sessionId!: string;

  @ApiProperty({ enum: STATES })
  @IsIn(STATES)
  state!: TurnState;

  @ApiPropertyOptional({ maxLength: TURN_LIMITS.identifier, format: 'uuid' })
  @IsOptional()
  @IsString()
  @MaxLength(TURN_LIMITS.identifier)
  promptId?: string;

  @ApiPropertyOptional({ maxLength: TURN_LIMITS.promptText, description: 'First non-empty text block of the prompt ("[image]" for an image-only prompt).' })
  @IsOptional()
  @IsString()
  @MaxLength(TURN_LIMITS.promptText)
  promptText?: string;

  @ApiPropertyOptional({ enum: [true] })
  @IsOptional()
  @Equals(true)
  promptTextTruncated?: true;

  @ApiPropertyOptional({ description: 'Admission time; present while the prompt is live or in the in-memory overlay.' })
  @IsOptional()
  @IsInt()
  @Min(0)
  queuedAt?: number;

  @ApiPropertyOptional({ description: 'Dispatch into the Session; absent while queued.' })
  @IsOptional()
  @IsInt()
  @Min(0)
  startedAt?: number;

  @ApiPropertyOptional({ description: 'Terminal time.' })
  @IsOptional()
  @IsInt()
  @Min(0)
  endedAt?: number;

  @ApiPropertyOptional({ maxLength: TURN_LIMITS.identifier, example: 'end_turn' })
  @IsOptional()
  @IsString()
  @MaxLength(TURN_LIMITS.identifier)
  stopReason?: string;

  @ApiPropertyOptional({ type: () => TurnErrorDto, description: 'Present exactly when state is "error".' })
  @IsOptional()
  @ValidateNested()
  @Type(() => TurnErrorDto)
  error?: TurnErrorDto;

  @ApiPropertyOptional({ maxLength: TURN_LIMITS.resultText, description: 'Raw final main answer: top-level non-thought text after the last tool call.' })
  @IsOptional()
  @IsString()
  @MaxLength(TURN_LIMITS.resultText)
  resultText?: string;

  @ApiPropertyOptional({ enum: [true] })
  @IsOptional()
  @Equals(true)
  resultTruncated?: true;

  @ApiPropertyOptional({ enum: [RESULT_TEXT_TRUNCATED], description: 'Present exactly when resultTruncated.' })
  @IsOptional()
  @Equals(RESULT_TEXT_TRUNCATED)
  resultCode?: typeof RESULT_TEXT_TRUNCATED;

  @ApiPropertyOptional({ maxLength: TURN_LIMITS.identifier })
  @IsOptional()
  @IsString()
  @MaxLength(TURN_LIMITS.identifier)
  originatorClientId?: string;
}

/** Every error body: a message, a stable code, and details that depend on the code. */
export class ErrorResponseDto {
  @ApiProperty({ example: 'Prompt not found' })
  error!: string;

  @ApiProperty({ example: 'prompt_not_found' })
  code!: string;

  @ApiPropertyOptional()
  sessionId?: string;

  @ApiPropertyOptional()
  promptId?: string;

  @ApiPropertyOptional()
  clientId?: string;
}
