import type { AdmittedPrompt, PendingPrompt } from '../wire/wire-types.js';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '../common/swagger.js';
import { plainToInstance } from 'class-transformer';
import { ArrayNotEmpty, Equals, IsArray, IsInt, IsPositive, IsString, ValidateBy, validateSync } from 'class-validator';
import { IsOmittable } from '../validation/is-omittable.decorator.js';

/** A text block: `{type:"text", text}` (ACP's shape). */
export class TextPromptBlockDto {
  @ApiProperty({ enum: ['text'] })
  @Equals('text')
  type!: 'text';

  @ApiProperty()
  @IsString()
  text!: string;
}

/** An image block: `{type:"image", data?, mimeType?}` (ACP's shape). */
export class ImagePromptBlockDto {
  @ApiProperty({ enum: ['image'] })
  @Equals('image')
  type!: 'image';

  @ApiPropertyOptional({ description: 'Base64 image data.' })
  @IsOmittable()
  @IsString()
  data?: string;

  @ApiPropertyOptional({ example: 'image/png' })
  @IsOmittable()
  @IsString()
  mimeType?: string;
}

/** The class of each block `type`; what validates a block and what the document shows. */
const PROMPT_BLOCKS = { text: TextPromptBlockDto, image: ImagePromptBlockDto } as const;

/** Checks each block against the class its `type` names; messages name the block (`prompt.1.text`). */
function IsPromptBlocks(): PropertyDecorator {
  const problems = (blocks: unknown): string[] =>
    (Array.isArray(blocks) ? blocks : []).flatMap((block: unknown, i) => {
      if (block === null || typeof block !== 'object' || Array.isArray(block)) return [`prompt.${i}: each block must be an object`];
      const type = (block as { type?: unknown }).type;
      const dto: (new () => object) | undefined =
        typeof type === 'string' && Object.hasOwn(PROMPT_BLOCKS, type) ? PROMPT_BLOCKS[type as keyof typeof PROMPT_BLOCKS] : undefined;
      if (!dto) return [`prompt.${i}.type: type must be one of: ${Object.keys(PROMPT_BLOCKS).join(', ')}`];
      return validateSync(plainToInstance(dto, block), { forbidUnknownValues: true }).flatMap((error) =>
        Object.values(error.constraints ?? {}).map((message) => `prompt.${i}.${error.property}: ${message}`),
      );
    });
  return ValidateBy({
    name: 'isPromptBlocks',
    validator: { validate: (blocks) => problems(blocks).length === 0, defaultMessage: (args) => problems(args?.value).join('; ') },
  });
}

@ApiExtraModels(...Object.values(PROMPT_BLOCKS))
export class PromptRequestDto {
  @ApiProperty({
    type: 'array',
    minItems: 1,
    items: {
      oneOf: Object.values(PROMPT_BLOCKS).map((dto) => ({ $ref: getSchemaPath(dto) })),
      discriminator: {
        propertyName: 'type',
        mapping: Object.fromEntries(Object.entries(PROMPT_BLOCKS).map(([type, dto]) => [type, getSchemaPath(dto)])),
      },
    },
    description: 'Content blocks. Their size (TURNS_MAX_PROMPT_CHARS) counts every string a block carries, `type` and `mimeType` too.',
  })
  @IsArray()
  @ArrayNotEmpty()
  @IsPromptBlocks()
  prompt!: Array<TextPromptBlockDto | ImagePromptBlockDto>;

  @ApiPropertyOptional({ description: 'Narrows the server deadline (TURNS_PROMPT_DEADLINE_MS); ignored when none is set.' })
  @IsOmittable()
  @IsInt()
  @IsPositive()
  deadlineMs?: number;

  @ApiPropertyOptional({
    description:
      "Token budget of this turn: once its usage's totalTokens passes it, the turn ends error token_budget_exceeded. Narrows TURNS_PROMPT_MAX_TOKENS; applies without it too.",
    minimum: 1,
    example: 20000,
  })
  @IsOmittable()
  @IsInt()
  @IsPositive()
  maxTokens?: number;
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
  @ApiPropertyOptional({
    description:
      'The client id that admitted the prompt, shown only to that client (its request carries it); to everyone else its pseudonym: `~` and 16 base64url characters, never accepted as a client id.',
  })
  originatorClientId?: string;
}

export class PendingPromptsDto {
  @ApiProperty({ type: [PendingPromptDto] }) pendingPrompts!: PendingPromptDto[];
}

export class RemovedDto {
  @ApiProperty() removed!: boolean;
}
