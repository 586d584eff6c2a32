import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '../common/swagger.js';
import { Registry } from 'prom-client';
import { TurnsMetrics } from './turns-metrics.js';

/** `GET /metrics` on the API's port (behind the bearer token, like every route but the probes). */
@ApiTags('daemon')
@Controller()
export class MetricsController {
  constructor(private readonly metrics: TurnsMetrics) {}

  @Get('metrics')
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Prometheus metrics of this node (text exposition format)', operationId: 'getMetrics' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'turns_* series and Node process metrics, in the Prometheus text format.', schema: { type: 'string' } })
  metricsText(): Promise<string> {
    return this.metrics.metrics();
  }
}
