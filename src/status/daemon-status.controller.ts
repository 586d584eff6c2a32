import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '../common/swagger.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { notReady } from '../errors/api-errors.js';
import { Public } from '../http/public.decorator.js';
import { DaemonStatusDto, ProbeDto } from './daemon-status.dto.js';
import { DaemonStatusService } from './daemon-status.service.js';

/** `GET /daemon/status` for operators (behind the token) and the readiness probe (open, like `/health`). */
@ApiTags('daemon')
@Controller()
export class DaemonStatusController {
  constructor(private readonly daemon: DaemonStatusService) {}

  @Get('daemon/status')
  @ApiOperation({
    summary: 'Live counts: sessions, prompts, held requests, streams; readiness and cluster view',
    operationId: 'getDaemonStatus',
  })
  @ApiOkResponse({ type: DaemonStatusDto })
  status(): Promise<DaemonStatusDto> {
    return this.daemon.status();
  }

  @Get('health/ready')
  @Public()
  @ApiOperation({ summary: 'Readiness: 503 while the daemon cannot serve', operationId: 'getReadiness', security: [] })
  @ApiOkResponse({ type: ProbeDto })
  @ApiErrorResponses('not_ready')
  async ready(): Promise<ProbeDto> {
    const failing = await this.daemon.unready();
    if (failing) throw notReady(failing);
    return { status: 'ok' };
  }
}
