import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { Type } from 'class-transformer';
import { IsInt, IsNumber, IsObject, Min, ValidateNested } from 'class-validator';
import { IsOmittable } from '../validation/is-omittable.decorator.js';
import type { TurnUsage } from './rules/turn-usage.js';

/** A token count. */
function Tokens(description: string, required: boolean): PropertyDecorator {
  return (target, key) => {
    (required ? ApiProperty : ApiPropertyOptional)({ type: Number, minimum: 0, example: 20, description })(target, key);
    if (!required) IsOmittable()(target, key);
    IsInt()(target, key);
    Min(0)(target, key);
  };
}

/**
 * What a turn's model responses used, as the agent reported them: the sum
 * over its responses, or the turn's total when the agent gives one
 * (docs/operating.md#usage-and-token-budgets).
 *
 * @publicApi
 */
export class TurnUsageDto implements TurnUsage {
  @Tokens('Input (prompt) tokens.', true)
  inputTokens!: number;

  @Tokens('Output (candidate) tokens.', true)
  outputTokens!: number;

  @Tokens('All tokens, as the agent counts them; what maxTokens is measured against.', true)
  totalTokens!: number;

  @Tokens('Thought (reasoning) tokens, when the agent reports them.', false)
  thoughtTokens?: number;

  @Tokens('Input tokens read from a cache, when the agent reports them.', false)
  cachedReadTokens?: number;

  @ApiPropertyOptional({ type: Number, minimum: 0, example: 0.0042, description: 'Cost in US dollars, when the agent reports one.' })
  @IsOmittable()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  costUsd?: number;
}

/** The optional `usage` of a running or settled status. */
export function UsageField(description: string): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ type: () => TurnUsageDto, description })(target, key);
    IsOmittable()(target, key);
    IsObject()(target, key);
    ValidateNested()(target, key);
    Type(() => TurnUsageDto)(target, key);
  };
}
