import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { BRIDGE_OPTIONS, type BridgeOptions } from '../bridge/bridge-options.js';
import { Public } from '../auth/public.decorator.js';
import { TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS, TURN_LIMITS } from '../common/limits.js';
import { RUNTIME_WORKSPACES, type RuntimeWorkspaces } from '../sessions/runtime-options.js';

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
] as const;

@ApiTags('daemon')
@Controller()
export class SystemController {
  constructor(
    @Inject(RUNTIME_WORKSPACES) private readonly runtime: RuntimeWorkspaces,
    @Inject(BRIDGE_OPTIONS) private readonly bridge: BridgeOptions,
  ) {}

  @Get('health')
  @Public()
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('capabilities')
  @ApiOkResponse({ description: 'Protocol version, features, limits and workspaces.' })
  capabilities() {
    const workspaces = this.runtime.workspaces;
    return {
      v: 1,
      features: [...FEATURES],
      workspaceCwd: workspaces[0]!.cwd,
      limits: {
        maxPendingPromptsPerSession: this.bridge.maxPendingPrompts,
        ...(this.bridge.promptDeadlineMs !== undefined && { promptDeadlineMs: this.bridge.promptDeadlineMs }),
        promptTextMaxLength: TURN_LIMITS.promptText,
        resultTextMaxLength: TURN_LIMITS.resultText,
        terminalOverlaySize: TERMINAL_OVERLAY_SIZE,
        transcriptScanMaxPages: TRANSCRIPT_SCAN_LIMITS.maxPages,
        transcriptScanPageRecords: TRANSCRIPT_SCAN_LIMITS.recordsPerPage,
      },
      workspaces: workspaces.map(({ id, cwd, primary }) => ({ id, cwd, primary })),
    };
  }
}
