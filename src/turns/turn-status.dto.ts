import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { Type } from 'class-transformer';
import { Equals, IsArray, IsInt, IsObject, IsString, Min, ValidateNested } from 'class-validator';
import { IsOmittable } from '../validation/is-omittable.decorator.js';
import { LimitedText, TrueFlag } from './dto-fields.js';
import { PendingInteractionDto } from './pending-interaction.dto.js';
import { TurnUsageDto, UsageField } from './turn-usage.dto.js';
import { RESULT_TEXT_TRUNCATED, TURN_LIMITS } from './rules/limits.js';
import type {
  CancelledTurnStatus,
  CompletedTurnStatus,
  ErrorTurnStatus,
  IdleTurnStatus,
  QueuedTurnStatus,
  RunningTurnStatus,
  TurnActivity,
  TurnError,
  TurnState,
} from './turn-status.js';

/** An epoch-millisecond timestamp. */
function EpochMs(description: string, required: boolean): PropertyDecorator {
  return (target, key) => {
    (required ? ApiProperty : ApiPropertyOptional)({ type: Number, format: 'int64', minimum: 0, example: 1796071090048, description })(
      target,
      key,
    );
    if (!required) IsOmittable()(target, key);
    IsInt()(target, key);
    Min(0)(target, key);
  };
}

/** The `state` discriminator of one status class. */
function StateIs(state: TurnState): PropertyDecorator {
  return (target, key) => {
    ApiProperty({ enum: [state], type: String, description: 'Discriminator.' })(target, key);
    Equals(state)(target, key);
  };
}

/**
 * The error of a turn in state `error`.
 *
 * @publicApi
 */
export class TurnErrorDto implements TurnError {
  @LimitedText(TURN_LIMITS.errorMessage, {
    required: true,
    description: 'Normalized message, cut to 4,096 UTF-16 code units.',
    example: 'Prompt deadline exceeded',
  })
  message!: string;

  @LimitedText(TURN_LIMITS.errorCode, {
    description: 'String code; a JSON-RPC code reads as its decimal string ("-32603").',
    example: 'prompt_deadline_exceeded',
  })
  code?: string;

  @TrueFlag('The message was cut.')
  messageTruncated?: true;

  @TrueFlag('The code was cut.')
  codeTruncated?: true;
}

/** @publicApi */
export class IdleTurnStatusDto implements IdleTurnStatus {
  @ApiProperty({ description: 'The session, by the id the runtime gave it.' })
  @IsString()
  sessionId!: string;

  @StateIs('idle')
  state!: 'idle';
}

/** Fields shared by every status of an admitted prompt. */
abstract class PromptStatusDto {
  @ApiProperty({ description: 'The session, by the id the runtime gave it.' })
  @IsString()
  sessionId!: string;

  @LimitedText(TURN_LIMITS.identifier, { required: true })
  promptId!: string;

  @LimitedText(TURN_LIMITS.promptText, {
    description: 'First non-empty text block of the prompt ("[image]" for an image-only prompt).',
    example: 'hello',
  })
  promptText?: string;

  @TrueFlag('promptText was cut at 32,768 UTF-16 code units.')
  promptTextTruncated?: true;

  @LimitedText(TURN_LIMITS.identifier, {
    description:
      'The client id that admitted the prompt, shown only to that client (its request carries it); to everyone else its pseudonym: `~` and 16 base64url characters, never accepted as a client id.',
  })
  originatorClientId?: string;
}

/** @publicApi */
export class QueuedTurnStatusDto extends PromptStatusDto implements QueuedTurnStatus {
  @StateIs('queued')
  state!: 'queued';

  @EpochMs('Admission time.', true)
  queuedAt!: number;
}

/**
 * What the agent did so far in a running turn; refreshed at most once a second.
 *
 * @publicApi
 */
export class TurnActivityDto implements TurnActivity {
  @ApiProperty({ type: Number, minimum: 0, description: 'Agent updates since the turn started (message, thought, tool).' })
  @IsInt()
  @Min(0)
  events!: number;

  @ApiProperty({ type: Number, minimum: 0, description: 'Tool calls the agent started.' })
  @IsInt()
  @Min(0)
  toolCalls!: number;

  @EpochMs('Time of the last agent update counted.', true)
  lastEventAt!: number;

  @LimitedText(TURN_LIMITS.identifier, { description: 'Title of the last tool call.', example: 'Read README.md' })
  lastTool?: string;
}

/** @publicApi */
export class RunningTurnStatusDto extends PromptStatusDto implements RunningTurnStatus {
  @StateIs('running')
  state!: 'running';

  @EpochMs('Admission time.', true)
  queuedAt!: number;

  @EpochMs('Dispatch into the session.', true)
  startedAt!: number;

  @ApiPropertyOptional({
    type: () => TurnActivityDto,
    description: 'Present once the agent has sent an update: a busy agent moves lastEventAt, a stuck one does not.',
  })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => TurnActivityDto)
  activity?: TurnActivityDto;

  @ApiPropertyOptional({
    type: () => [PendingInteractionDto],
    description: 'Present while the agent waits on approval of a tool call; the state stays running.',
  })
  @IsOmittable()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => PendingInteractionDto)
  pendingInteractions?: PendingInteractionDto[];

  @UsageField('The tokens (and cost) the agent reported so far; refreshed as activity is.')
  usage?: TurnUsageDto;
}

/** Fields shared by the three terminal states. */
abstract class SettledStatusDto extends PromptStatusDto {
  @EpochMs('Admission time; present while the status is held in memory, absent when read back from the transcript.', false)
  queuedAt?: number;

  @EpochMs('Dispatch into the session; absent for a prompt that never started.', false)
  startedAt?: number;

  @EpochMs('Terminal time.', true)
  endedAt!: number;

  @LimitedText(TURN_LIMITS.identifier, { example: 'end_turn' })
  stopReason?: string;

  @LimitedText(TURN_LIMITS.resultText, {
    description: 'Raw final main answer: top-level non-thought text after the last tool call.',
    example: 'echo: hello',
  })
  resultText?: string;

  @TrueFlag('resultText was cut at 32,768 UTF-16 code units.')
  resultTruncated?: true;

  @ApiPropertyOptional({ enum: [RESULT_TEXT_TRUNCATED], type: String, description: 'Present exactly when resultTruncated.' })
  @IsOmittable()
  @Equals(RESULT_TEXT_TRUNCATED)
  resultCode?: typeof RESULT_TEXT_TRUNCATED;

  @UsageField("The turn's model responses, as the agent reported them; absent when it reported none.")
  usage?: TurnUsageDto;
}

/** @publicApi */
export class CompletedTurnStatusDto extends SettledStatusDto implements CompletedTurnStatus {
  @StateIs('completed')
  state!: 'completed';
}

/** @publicApi */
export class CancelledTurnStatusDto extends SettledStatusDto implements CancelledTurnStatus {
  @StateIs('cancelled')
  state!: 'cancelled';
}

/** @publicApi */
export class ErrorTurnStatusDto extends SettledStatusDto implements ErrorTurnStatus {
  @StateIs('error')
  state!: 'error';

  @ApiProperty({ type: () => TurnErrorDto })
  @IsObject()
  @ValidateNested()
  @Type(() => TurnErrorDto)
  error!: TurnErrorDto;
}

/**
 * The class of each state's status, by state: validate a status with the
 * class of its `state`; the OpenAPI document states the union as `oneOf` with
 * `state` as discriminator.
 *
 * @publicApi
 */
export const TURN_STATUS_DTOS = {
  idle: IdleTurnStatusDto,
  queued: QueuedTurnStatusDto,
  running: RunningTurnStatusDto,
  completed: CompletedTurnStatusDto,
  cancelled: CancelledTurnStatusDto,
  error: ErrorTurnStatusDto,
} as const satisfies Record<TurnState, new () => object>;

/**
 * The same map as {@link TURN_STATUS_DTOS}, under its first name.
 *
 * @deprecated A map of classes, not a class: use `TURN_STATUS_DTOS`.
 * @publicApi
 */
export const TurnStatusDto = TURN_STATUS_DTOS;
