import { ApiExtraModels, ApiProperty, getSchemaPath } from '../common/swagger.js';
import { ValidateBy } from 'class-validator';
import type { PermissionAnswer, PermissionOutcome } from '../wire/session-event.js';
import { OPTION_ID_LIMIT } from './pending-interaction.js';

/** `{outcome:"selected", optionId}`: one of the options the request offered. */
export class SelectedPermissionOutcomeDto {
  @ApiProperty({ enum: ['selected'] }) outcome!: 'selected';
  @ApiProperty({ example: 'proceed_once', minLength: 1, maxLength: OPTION_ID_LIMIT }) optionId!: string;
}

/** `{outcome:"cancelled"}`: the agent is told the request was cancelled. */
export class CancelledPermissionOutcomeDto {
  @ApiProperty({ enum: ['cancelled'] }) outcome!: 'cancelled';
}

/** True for `{outcome:"selected", optionId}` with a non-empty id, and `{outcome:"cancelled"}`. */
export function isPermissionOutcome(value: unknown): value is PermissionOutcome {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { outcome, optionId } = value as { outcome?: unknown; optionId?: unknown };
  if (outcome === 'cancelled') return true;
  return outcome === 'selected' && typeof optionId === 'string' && optionId.length > 0 && optionId.length <= OPTION_ID_LIMIT;
}

/** The body of both answer routes: the peer's `PermissionResponse` (its other fields are ignored). */
@ApiExtraModels(SelectedPermissionOutcomeDto, CancelledPermissionOutcomeDto)
export class PermissionAnswerDto implements PermissionAnswer {
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(SelectedPermissionOutcomeDto) }, { $ref: getSchemaPath(CancelledPermissionOutcomeDto) }],
    discriminator: {
      propertyName: 'outcome',
      mapping: { selected: getSchemaPath(SelectedPermissionOutcomeDto), cancelled: getSchemaPath(CancelledPermissionOutcomeDto) },
    },
  })
  @ValidateBy({
    name: 'isPermissionOutcome',
    validator: {
      validate: isPermissionOutcome,
      defaultMessage: () => `outcome must be {outcome:"selected", optionId} (1 to ${OPTION_ID_LIMIT} characters) or {outcome:"cancelled"}`,
    },
  })
  outcome!: PermissionOutcome;
}

/** `200 {}`: the answer was taken; the agent gets it. */
export class PermissionAnsweredDto {}
