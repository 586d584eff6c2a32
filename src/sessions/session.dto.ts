import type { CreatedSession } from '../common/wire-types.js';
import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { IsOmittable } from '../common/is-omittable.decorator.js';

export class CreateSessionDto {
  @ApiPropertyOptional({ description: 'Workspace directory; defaults to the primary workspace. Must be registered.' })
  @IsOmittable()
  @IsString()
  @MinLength(1)
  cwd?: string;

  @ApiPropertyOptional({
    enum: ['single', 'thread'],
    // The default is stated in words: a schema `default` makes generators (openapi-typescript) require the field.
    description: '"single" (when absent) attaches to the live session of the workspace, if any; "thread" always creates one.',
  })
  @IsOmittable()
  @IsIn(['single', 'thread'])
  sessionScope?: 'single' | 'thread';

  @ApiPropertyOptional({ format: 'uuid', description: 'Requested session id (UUID; otherwise 400 invalid_session_id).' })
  @IsOmittable()
  @IsString()
  sessionId?: string;
}

export class CreatedSessionDto implements CreatedSession {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty() workspaceCwd!: string;
  @ApiProperty() attached!: boolean;
  @ApiProperty({ example: 'client_00000000-0000-4000-8000-000000000000' }) clientId!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class LoadedSessionDto {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty() workspaceCwd!: string;
  @ApiProperty() clientId!: string;
}

export class ForkedSessionDto {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty() clientId!: string;
}

export class RewindDto {
  @ApiProperty({ description: 'The prompt whose turn, and everything after it, leaves the active chain.' })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  promptId!: string;
}

export class RewoundDto {
  @ApiProperty({ enum: [true] }) rewound!: true;
}
