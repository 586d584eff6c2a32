import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '../common/swagger.js';
import { RuntimeSettings } from '../runtime/runtime.settings.js';
import { capabilityLimits } from './capability-limits.js';
import type { LoadedDaemonConfig } from './daemon-config.js';
import { CapabilitiesDto, HealthDto, StatsDto } from './system.dto.js';
import { TurnWaitService } from '../turns/wait/turn-wait.service.js';
import { Public } from '../http/public.decorator.js';

/** Features this daemon always advertises; `session_turn_status` cannot be turned off. */
export const FEATURES = [
  'session_prompt',
  'session_turn_status',
  'session_events',
  'session_pending_prompts',
  'session_cancel',
  'session_load',
  'session_rewind',
  'session_fork',
  'session_turn_wait',
  'session_turn_list',
  'idempotency_keys',
  'turn_webhooks',
  // docs/permissions.md: an agent's requests for approval are answered over REST (the peer's tags).
  'session_permission_vote',
  'permission_vote',
  // Usage on every turn, and a prompt's maxTokens (docs/operating.md#usage-and-token-budgets).
  'turn_usage',
  'turn_token_budget',
  // The peer's unconditional tags for what this daemon serves too (docs/qwen-serve.md).
  'client_identity',
  'non_blocking_prompt',
  'session_create',
  'session_close',
  'session_status',
  'session_resume',
  'session_branch',
  'health',
  'capabilities',
  'daemon_status',
] as const;

/** The daemon's configuration, for what `/capabilities` reports beyond the runtime. */
export const DAEMON_CONFIG = Symbol('DAEMON_CONFIG');

@ApiTags('daemon')
@Controller()
export class SystemController {
  constructor(
    private readonly settings: RuntimeSettings,
    private readonly waits: TurnWaitService,
    @Inject(DAEMON_CONFIG) private readonly config: LoadedDaemonConfig,
  ) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Liveness', operationId: 'getHealth', security: [] })
  @ApiOkResponse({ type: HealthDto })
  health(): HealthDto {
    return { status: 'ok' };
  }

  @Get('capabilities')
  @ApiOperation({ summary: 'Protocol version, features, effective limits and workspaces', operationId: 'getCapabilities' })
  @ApiOkResponse({ type: CapabilitiesDto })
  capabilities(): CapabilitiesDto {
    const { workspaces, promptDeadlineMs } = this.settings;
    return {
      v: 1,
      features: [
        ...FEATURES,
        // The prompt ledger lives beside the transcript: without recording there is none (docs/ledger.md).
        ...(this.settings.chatRecording ? ['session_turn_ledger'] : []),
        ...(promptDeadlineMs !== undefined ? ['prompt_absolute_deadline'] : []),
        ...(this.config.redisUrl ? ['cluster'] : []),
        // The peer's tag for its rate limits (docs/operating.md#rate-limits).
        ...(this.config.rateLimit ? ['rate_limit'] : []),
      ],
      workspaceCwd: this.settings.primary.cwd,
      limits: capabilityLimits(this.config, this.settings),
      workspaces: workspaces.map(({ id, cwd, primary }) => ({ id, cwd, primary })),
      ...(this.config.redisUrl && { cluster: { nodeId: this.config.nodeId!, leaseMs: this.config.leaseMs! } }),
    };
  }

  @Get('debug/stats')
  @ApiOperation({ summary: 'Live counters: held turn requests, memory', operationId: 'getDebugStats' })
  @ApiOkResponse({ type: StatsDto })
  stats(): StatsDto {
    const memory = process.memoryUsage();
    return { waiters: this.waits.waiting, heapUsedBytes: memory.heapUsed, rssBytes: memory.rss };
  }
}
