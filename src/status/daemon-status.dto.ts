import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';

export class ProbeDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

class LiveSessionsDto {
  @ApiProperty({ example: 3 }) live!: number;
}

class PromptCountsDto {
  @ApiProperty({ example: 2, description: 'Admitted, waiting in a session FIFO.' }) queued!: number;
  @ApiProperty({ example: 1, description: 'Dispatched into their session, not settled yet.' }) running!: number;
}

class WebhookCountsDto {
  @ApiProperty({ example: 0, description: 'Deliveries waiting for an attempt.' }) pending!: number;
  @ApiProperty({ example: 0, description: 'Deliveries whose last attempt failed and that will be retried.' }) failing!: number;
}

class ClusterStatusDto {
  @ApiProperty({ example: 'node-a' }) nodeId!: string;
  @ApiProperty({ enum: ['up', 'down'] }) redis!: 'up' | 'down';
  @ApiProperty({ example: 3, description: 'Session leases this node holds.' }) leases!: number;
}

export class DaemonStatusDto {
  @ApiProperty({ enum: [1] }) v!: 1;
  @ApiProperty({ enum: ['ok', 'degraded'], description: '`degraded` while GET /health/ready would answer 503.' })
  status!: 'ok' | 'degraded';
  @ApiProperty({ example: '0.1.0' }) version!: string;
  @ApiProperty({ example: 86400000 }) uptimeMs!: number;
  @ApiProperty({ type: LiveSessionsDto }) sessions!: LiveSessionsDto;
  @ApiProperty({ type: PromptCountsDto }) prompts!: PromptCountsDto;
  @ApiProperty({ example: 0, description: 'Turn requests being held right now.' }) waiters!: number;
  @ApiProperty({ example: 1, description: 'Open SSE streams.' }) sseStreams!: number;
  @ApiProperty({ type: WebhookCountsDto }) webhooks!: WebhookCountsDto;
  @ApiPropertyOptional({ type: ClusterStatusDto, description: 'Present in cluster mode.' }) cluster?: ClusterStatusDto;
}
