import type { BranchedSession, CreatedSession, RestoredSession } from '../wire/wire-types.js';
import type { Heartbeat, SessionStatus } from './session-presence.service.js';
import type { RewindResult, RewindSnapshot } from './session-rewind.service.js';
import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { IsOmittable } from '../validation/is-omittable.decorator.js';
import { PendingInteractionDto } from '../turns/pending-interaction.dto.js';

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

/** A record of the prompt ledger (docs/ledger.md), as `load` answers it. */
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

export class RestoredSessionDto extends CreatedSessionDto implements RestoredSession {
  @ApiProperty({ type: 'object', properties: {}, description: 'Always `{}` (the peer reports its agent state here).' })
  state!: Record<string, never>;
  @ApiProperty({ description: 'A prompt is queued or running.' }) hasActivePrompt!: boolean;
  @ApiProperty({ enum: [false] }) hasRunningBackgroundTasks!: false;
  @ApiProperty({ description: 'Newest event id of the session: the Last-Event-ID to resume its stream from.' }) lastEventId!: number;
  @ApiProperty({ description: "The session's event epoch (send it back as X-Qwen-Event-Epoch)." }) eventEpoch!: string;
}

/** What `load` answers: `resume`'s fields, and the prompt ledger's terminals (docs/ledger.md). */
export class LoadedSessionDto extends RestoredSessionDto {
  @ApiPropertyOptional({
    type: [PromptTerminalDto],
    description:
      "The prompt ledger's last 64 terminal records (from its last 256 KiB), oldest first; absent when there are none. " +
      'A load that makes the session live first settles every prompt a crash left in flight: `completed` with ' +
      '`stopReason: reconstructed_from_transcript` when the transcript holds its result, else `interrupted` with `code: daemon_lost`.',
  })
  promptTerminals?: PromptTerminalDto[];
}

class ForkedFromDto {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
}

export class BranchSessionDto {
  @ApiPropertyOptional({ description: 'A name for the branch (accepted; this daemon keeps no display names).' })
  @IsOmittable()
  @IsString()
  @MaxLength(256)
  name?: string;
}

export class BranchedSessionDto extends CreatedSessionDto implements BranchedSession {
  @ApiProperty({ enum: [false] }) declare attached: false;
  @ApiProperty({ type: ForkedFromDto }) forkedFrom!: { sessionId: string };
}

export class ForkSessionDto {
  @ApiPropertyOptional({
    description: "The peer's background fork agent; not run here: a body with a directive is refused (501 fork_directive_unsupported).",
  })
  @IsOmittable()
  @IsString()
  directive?: string;
}

export class RewindSnapshotDto implements RewindSnapshot {
  @ApiProperty({ example: '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a########0', description: 'The snapshot id POST /rewind takes.' })
  promptId!: string;
  @ApiProperty({ description: 'Turn on the active chain, 0 for the first prompt.' }) turnIndex!: number;
  @ApiProperty({ format: 'date-time' }) timestamp!: string;
}

export class RewindSnapshotsDto {
  @ApiProperty({ type: [RewindSnapshotDto] }) snapshots!: RewindSnapshotDto[];
}

export class SessionStatusDto implements SessionStatus {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty() workspaceCwd!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ description: 'Client ids registered on the session.' }) clientCount!: number;
  @ApiProperty() hasActivePrompt!: boolean;
  @ApiProperty({ enum: [false] }) hasRunningBackgroundTasks!: false;
  @ApiProperty({ description: 'Prompts queued or running.' }) pendingPromptCount!: number;
  @ApiProperty({ description: 'The running turn waits on approval of a tool call.' }) isWaitingForPermission!: boolean;
  @ApiProperty() pendingInteractionCount!: number;
  @ApiProperty({ type: () => [PendingInteractionDto], description: 'Requests for approval pending, oldest first.' })
  pendingInteractions!: PendingInteractionDto[];
  @ApiProperty() lastEventId!: number;
  @ApiProperty() eventEpoch!: string;
}

export class HeartbeatDto implements Heartbeat {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiPropertyOptional({ description: 'Absent for an anonymous caller.' }) clientId?: string;
  @ApiProperty({ description: 'Epoch ms.' }) lastSeenAt!: number;
}

export class ForkedSessionDto {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty() clientId!: string;
}

export class RewindDto {
  @ApiProperty({
    description: "The prompt whose turn, and everything after it, leaves the active chain: its promptId or the peer's snapshot id.",
  })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  promptId!: string;
}

export class RewoundDto implements RewindResult {
  @ApiProperty({ enum: [true] }) rewound!: true;
  @ApiProperty({ description: 'Turn index of the rewound prompt.' }) targetTurnIndex!: number;
  @ApiProperty({ type: [String], description: 'Always empty: a rewind changes the chat only.' }) filesChanged!: string[];
  @ApiProperty({ type: [String], description: 'Always empty.' }) filesFailed!: string[];
}
