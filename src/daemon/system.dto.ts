import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import type { CapabilityLimits } from '../wire/capability-limits.js';
import { ADVERTISED_LIMITS } from './capability-limits.js';

export class HealthDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

/** `/capabilities.limits`: its schema written from the settings' rows ({@link ADVERTISED_LIMITS}). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface LimitsDto extends CapabilityLimits {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class LimitsDto {}
for (const { field, required, ...shown } of ADVERTISED_LIMITS) {
  (required ? ApiProperty : ApiPropertyOptional)({ type: Number, ...shown })(LimitsDto.prototype, field);
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
