import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { Type } from 'class-transformer';
import { Equals, IsArray, IsInt, IsObject, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import { IsOmittable } from '../validation/is-omittable.decorator.js';
import { INTERACTION_LIMITS, RESULT_TEXT_TRUNCATED, TURN_LIMITS } from './rules/limits.js';
import type {
  CancelledTurnStatus,
  CompletedTurnStatus,
  ErrorTurnStatus,
  IdleTurnStatus,
  PendingInteraction,
  PendingInteractionOption,
  QueuedTurnStatus,
  RunningTurnStatus,
  TurnActivity,
  TurnError,
  TurnState,
} from './turn-status.js';

/** A property that is `true` or absent. */
function TrueFlag(description: string): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ enum: [true], type: Boolean, description })(target, key);
    IsOmittable()(target, key);
    Equals(true)(target, key);
  };
}

/** A string property cut to `maxLength` UTF-16 code units. */
function LimitedText(
  maxLength: number,
  options: { required?: boolean; description?: string; example?: string; format?: string } = {},
): PropertyDecorator {
  const { required = false, ...doc } = options;
  return (target, key) => {
    (required ? ApiProperty : ApiPropertyOptional)({ type: String, maxLength, ...doc })(target, key);
    if (!required) IsOmittable()(target, key);
    IsString()(target, key);
    MaxLength(maxLength)(target, key);
  };
}

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

  @LimitedText(TURN_LIMITS.identifier, { description: 'The client id that admitted the prompt.' })
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
 * A tool call the running turn waits on approval for (SPEC §21).
 *
 * @publicApi
 */
export class PendingInteractionDto implements PendingInteraction {
  @ApiProperty({
    description: 'The id a client answers the request by (SPEC §21).',
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
