import { Body, Controller, Get, HttpCode, Param, Post, UsePipes } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiTags } from '../common/swagger.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { clusterUnavailable } from '../errors/api-errors.js';
import { ClusterNode } from './node/cluster-node.js';
import { ClusterNodesDto, ReleaseSessionDto } from './cluster.dto.js';
import { createValidationPipe } from '../validation/validation.pipe.js';
import { LeaseDirectory, type NodeRecord } from './lease-directory.js';
import { RedisSessionOwnership } from './redis-session-ownership.js';

@ApiTags('cluster')
@Controller('cluster')
export class ClusterController {
  constructor(
    private readonly directory: LeaseDirectory,
    private readonly node: ClusterNode,
    private readonly ownership: RedisSessionOwnership,
  ) {}

  @Get('nodes')
  @ApiOperation({ summary: 'Live nodes of the cluster and how many sessions each owns', operationId: 'listClusterNodes' })
  @ApiOkResponse({ type: ClusterNodesDto })
  @ApiErrorResponses('cluster_unavailable')
  async nodes(): Promise<ClusterNodesDto> {
    let nodes: NodeRecord[];
    try {
      nodes = await this.directory.nodes();
    } catch {
      throw clusterUnavailable();
    }
    return { nodeId: this.node.id, nodes: nodes.map((node) => ({ ...node, self: node.nodeId === this.node.id })) };
  }

  /**
   * A peer's claim asks this node to let go of a session whose lease Redis
   * lost while this node still trusted it (docs/cluster.md, *Lease handover*);
   * answered once the lease is dropped here (the session's teardown follows),
   * and only for a fence the data dir records. Its path is not session-scoped,
   * so it is answered by the node asked, never forwarded.
   */
  @Post('sessions/:sessionId/release')
  @HttpCode(200)
  @ApiExcludeEndpoint()
  @UsePipes(createValidationPipe())
  async release(@Param('sessionId') sessionId: string, @Body() body: ReleaseSessionDto): Promise<{ released: boolean }> {
    return { released: await this.ownership.yieldTo(sessionId, body.fence) };
  }
}
