import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';

export class HealthDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

export class LimitsDto {
  @ApiProperty({ example: 5 }) maxPendingPromptsPerSession!: number;
  @ApiPropertyOptional({ description: 'Server deadline per prompt (TURNS_PROMPT_DEADLINE_MS), when one is set.' })
  promptDeadlineMs?: number;
  @ApiProperty({ example: 32768 }) promptTextMaxLength!: number;
  @ApiProperty({ example: 32768 }) resultTextMaxLength!: number;
  @ApiProperty({ example: 64 }) terminalOverlaySize!: number;
  @ApiProperty({ example: 10 }) transcriptScanMaxPages!: number;
  @ApiProperty({ example: 500 }) transcriptScanPageRecords!: number;
  @ApiProperty({ example: 4194304 }) transcriptScanPageBytes!: number;
  @ApiProperty({ example: 1000 }) maxSessions!: number;
  @ApiProperty({ example: 1000 }) maxSseStreams!: number;
  @ApiProperty({ example: 16 }) maxSseStreamsPerSession!: number;
  @ApiProperty({ example: 1048576 }) maxPromptChars!: number;
  @ApiProperty({ example: 268435456 }) maxTranscriptBytes!: number;
  @ApiProperty({ example: 30000, description: 'Longest wait of a turn request (waitMs, Prefer: wait).' }) maxWaitMs!: number;
  @ApiProperty({ example: 10000 }) maxWaiters!: number;
  @ApiProperty({ example: 4194304 }) maxBodyBytes!: number;
  @ApiProperty({ example: 10000 }) headersTimeoutMs!: number;
  @ApiProperty({ example: 30000 }) requestTimeoutMs!: number;
  @ApiProperty({ example: 10000, description: 'Idempotency-Key values remembered per daemon.' }) maxIdempotencyKeys!: number;
  @ApiProperty({ example: 86400000, description: 'How long an Idempotency-Key is remembered, ms.' }) idempotencyTtlMs!: number;
  @ApiProperty({ example: 8 }) maxWebhooksPerSession!: number;
  @ApiProperty({ example: 10000, description: 'A webhook attempt succeeds with a 2xx within this time.' }) webhookTimeoutMs!: number;
  @ApiProperty({ example: 8 }) webhookMaxAttempts!: number;
  @ApiProperty({ example: 5000, description: 'Scales the retry schedule (5 s, 30 s, 2 min, … 6 h at 5000).' }) webhookRetryBaseMs!: number;
}

export class StatsDto {
  @ApiProperty({ description: 'Turn requests being held right now.' }) waiters!: number;
  @ApiProperty({ description: 'V8 heap in use, bytes.' }) heapUsedBytes!: number;
  @ApiProperty({ description: 'Resident set size, bytes.' }) rssBytes!: number;
}

export class WorkspaceDto {
  @ApiProperty() id!: string;
  @ApiProperty() cwd!: string;
  @ApiProperty() primary!: boolean;
}

export class ClusterInfoDto {
  @ApiProperty({ example: 'node-a', description: 'The node that answered (also in the X-Turns-Node header).' }) nodeId!: string;
  @ApiProperty({ example: 10000, description: 'Lease time of session ownership (TURNS_LEASE_MS).' }) leaseMs!: number;
}

export class CapabilitiesDto {
  @ApiProperty({ enum: [1] }) v!: 1;
  @ApiProperty({ type: [String], example: ['session_prompt', 'session_turn_status'] }) features!: string[];
  @ApiProperty({ description: 'The primary workspace.' }) workspaceCwd!: string;
  @ApiProperty({ type: LimitsDto }) limits!: LimitsDto;
  @ApiProperty({ type: [WorkspaceDto] }) workspaces!: WorkspaceDto[];
  @ApiPropertyOptional({ type: ClusterInfoDto, description: 'Present in cluster mode (feature "cluster").' }) cluster?: ClusterInfoDto;
}
