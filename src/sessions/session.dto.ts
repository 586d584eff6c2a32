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

/** A record of the prompt ledger (SPEC §18), as `load` answers it. */
export class PromptTerminalDto {
  @ApiProperty({ enum: [1] }) v!: 1;
  @ApiProperty() promptId!: string;
  @ApiProperty({
    enum: ['completed', 'cancelled', 'error', 'interrupted'],
    description: '`interrupted`: the daemon died before the prompt settled (settled at `load`, code `daemon_lost`).',
  })
  terminal!: 'completed' | 'cancelled' | 'error' | 'interrupted';
  @ApiPropertyOptional({ description: 'The normalized error code (`error`, `interrupted`); the message is never kept.' })
  code?: string;
  @ApiPropertyOptional({
    description: 'e.g. `end_turn`, `cancelled`; `reconstructed_from_transcript` when reconciled from the transcript.',
  })
  stopReason?: string;
  @ApiProperty({ description: 'When the terminal was recorded, epoch ms.' }) at!: number;
}

export class LoadedSessionDto {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty() workspaceCwd!: string;
  @ApiProperty() clientId!: string;
  @ApiPropertyOptional({
    type: [PromptTerminalDto],
    description:
      "The prompt ledger's last 64 terminal records (from its last 256 KiB), oldest first; absent when there are none. " +
      'A load that makes the session live first settles every prompt a crash left in flight: `completed` with ' +
      '`stopReason: reconstructed_from_transcript` when the transcript holds its result, else `interrupted` with `code: daemon_lost`.',
  })
  promptTerminals?: PromptTerminalDto[];
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
