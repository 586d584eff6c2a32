import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { ERROR_CATALOGUE } from './api-errors.js';

/**
 * Every error body: a message, a stable code, and details that depend on the code.
 *
 * @publicApi
 */
export class ErrorResponseDto {
  @ApiProperty({ description: 'Human-readable message.' })
  error!: string;

  @ApiProperty({
    description: 'Stable, machine-readable code: one of the catalogue (README, Errors).',
    enum: Object.keys(ERROR_CATALOGUE),
    enumName: 'ErrorCode',
  })
  code!: string;

  @ApiPropertyOptional()
  sessionId?: string;

  @ApiPropertyOptional()
  promptId?: string;

  @ApiPropertyOptional()
  clientId?: string;

  @ApiPropertyOptional({ description: 'prompt_queue_full: the per-session limit.' })
  limit?: number;

  @ApiPropertyOptional({ description: 'prompt_queue_full: prompts pending now.' })
  pendingCount?: number;

  @ApiPropertyOptional({ description: 'transcript_page_too_large: bytes of the record that did not fit.' })
  pageBytes?: number;

  @ApiPropertyOptional({ description: 'transcript_page_too_large, transcript_too_large: the bound.' })
  maxBytes?: number;

  @ApiPropertyOptional({ description: 'transcript_too_large: bytes of the transcript.' })
  snapshotSize?: number;

  @ApiPropertyOptional({ description: 'workspace_mismatch: the cwd asked for.' })
  cwd?: string;

  @ApiPropertyOptional({ description: 'invalid_wait_ms: the longest wait allowed.' })
  maxWaitMs?: number;

  @ApiPropertyOptional({ description: 'prompt_too_large: the size of the prompt, and the bound (UTF-16 code units).' })
  promptChars?: number;

  @ApiPropertyOptional()
  maxChars?: number;

  @ApiPropertyOptional({ description: 'session_on_other_node, cluster_unavailable: the node that owns the session.' })
  node?: string;

  @ApiPropertyOptional({ description: 'not_ready: the readiness check that fails (data_dir_writable, redis).' })
  check?: string;
  @ApiPropertyOptional({ description: 'webhook_not_found: the subscription asked for.' })
  webhookId?: string;

  @ApiPropertyOptional({ description: 'webhook_url_forbidden: why the URL was refused.' })
  reason?: string;

  @ApiPropertyOptional({ description: 'invalid_turn_state: the state filter refused (its first 256 code units).' })
  state?: string;

  @ApiPropertyOptional({ description: 'invalid_limit: the largest page.' })
  maxLimit?: number;
}
