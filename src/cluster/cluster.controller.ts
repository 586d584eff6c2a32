import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '../common/swagger.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { clusterUnavailable } from '../errors/api-errors.js';
import { ClusterNode } from './cluster-node.js';
import { ClusterNodesDto } from './cluster.dto.js';
import { LeaseDirectory, type NodeRecord } from './lease-directory.js';

@ApiTags('cluster')
@Controller('cluster')
export class ClusterController {
  constructor(
    private readonly directory: LeaseDirectory,
    private readonly node: ClusterNode,
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
}
