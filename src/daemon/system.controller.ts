import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TURN_LIMITS } from '../common/limits.js';
import { RuntimeSettings } from '../runtime/runtime-settings.js';
import { CapabilitiesDto, HealthDto } from './system.dto.js';
import { Public } from './public.decorator.js';

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
  constructor(private readonly settings: RuntimeSettings) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Liveness', operationId: 'health', security: [] })
  @ApiOkResponse({ type: HealthDto })
  health(): HealthDto {
    return { status: 'ok' };
  }

  @Get('capabilities')
  @ApiOperation({ summary: 'Protocol version, features, effective limits and workspaces', operationId: 'capabilities' })
  @ApiOkResponse({ type: CapabilitiesDto })
  capabilities(): CapabilitiesDto {
    const { workspaces, maxPendingPrompts, promptDeadlineMs, overlaySize, scanLimits } = this.settings;
    return {
      v: 1,
      features: [...FEATURES],
      workspaceCwd: this.settings.primary.cwd,
      limits: {
        maxPendingPromptsPerSession: maxPendingPrompts,
        ...(promptDeadlineMs !== undefined && { promptDeadlineMs }),
        promptTextMaxLength: TURN_LIMITS.promptText,
        resultTextMaxLength: TURN_LIMITS.resultText,
        terminalOverlaySize: overlaySize,
        transcriptScanMaxPages: scanLimits.maxPages,
        transcriptScanPageRecords: scanLimits.recordsPerPage,
        transcriptScanPageBytes: scanLimits.bytesPerPage,
      },
      workspaces: workspaces.map(({ id, cwd, primary }) => ({ id, cwd, primary })),
    };
  }
}
