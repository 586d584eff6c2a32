import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * Every error body: a message, a stable code, and details that depend on the code.
 *
 * @publicApi
 */
export class ErrorResponseDto {
  @ApiProperty({ description: 'Human-readable message.' })
  error!: string;

  @ApiProperty({ description: 'Stable, machine-readable code.' })
  code!: string;

  @ApiPropertyOptional({ format: 'uuid' })
  sessionId?: string;

  @ApiPropertyOptional()
  promptId?: string;

  @ApiPropertyOptional()
  clientId?: string;
}
