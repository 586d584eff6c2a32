import { Body, Controller, Get, HttpCode, Param, Post, UsePipes } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiTags } from '../common/swagger.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { clusterUnavailable } from '../errors/api-errors.js';
import { ClusterNode } from './node/cluster-node.js';
import { ClusterNodesDto, ReleaseSessionDto } from './cluster.dto.js';
import { createValidationPipe } from '../validation/validation.pipe.js';
import { ClusterOwnership } from './leases/cluster-ownership.js';
import { NodeRegistry, type NodeRecord } from './leases/node-registry.js';

@ApiTags('cluster')
@Controller('cluster')
export class ClusterController {
  constructor(
    private readonly registry: NodeRegistry,
    private readonly node: ClusterNode,
    private readonly ownership: ClusterOwnership,
  ) {}

  @Get('nodes')
  @ApiOperation({ summary: 'Live nodes of the cluster and how many sessions each owns', operationId: 'listClusterNodes' })
  @ApiOkResponse({ type: ClusterNodesDto })
  @ApiErrorResponses('cluster_unavailable')
  async nodes(): Promise<ClusterNodesDto> {
    let nodes: NodeRecord[];
    try {
      nodes = await this.registry.nodes();
    } catch {
      throw clusterUnavailable();
    }
    return { nodeId: this.node.id, nodes: nodes.map((node) => ({ ...node, self: node.nodeId === this.node.id })) };
  }

  /**
   * A peer's claim asks this node to let go of a session (docs/cluster.md#inv-lease-5); not session-scoped, so answered
   * by the node asked, never forwarded.
   */
  @Post('sessions/:sessionId/release')
  @HttpCode(200)
  @ApiExcludeEndpoint()
  @UsePipes(createValidationPipe())
  async release(@Param('sessionId') sessionId: string, @Body() body: ReleaseSessionDto): Promise<{ released: boolean }> {
    return { released: await this.ownership.yieldTo(sessionId, body.fence) };
  }
}
