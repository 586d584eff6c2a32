import { IsInt, Min } from 'class-validator';
import { ApiProperty } from '../common/swagger.js';

export class ClusterNodeDto {
  @ApiProperty({ example: 'node-a' }) nodeId!: string;
  @ApiProperty({ example: 'http://10.0.0.5:4170', description: 'Where other nodes forward to.' }) url!: string;
  @ApiProperty({ example: 12, description: 'Sessions whose lease this node holds.' }) sessions!: number;
  @ApiProperty({ example: 1764561600000 }) startedAt!: number;
  @ApiProperty({ example: 1764561603000, description: 'Last heartbeat; a node silent for a lease is gone from the list.' })
  heartbeatAt!: number;
  @ApiProperty({ description: 'True for the node that answered.' }) self!: boolean;
}

export class ClusterNodesDto {
  @ApiProperty({ example: 'node-a', description: 'The node that answered.' }) nodeId!: string;
  @ApiProperty({ type: [ClusterNodeDto] }) nodes!: ClusterNodeDto[];
}

/** A claimer's request to a previous owner to let go of a session (a peer route, not in the API document). */
export class ReleaseSessionDto {
  /** The fence the claimer won: the session is let go only when held here with a lower one. */
  @IsInt()
  @Min(1)
  fence!: number;
}
