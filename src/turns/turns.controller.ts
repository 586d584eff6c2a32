import { Controller, Param } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { TurnStatusService } from './turn-status.service.js';
import type { TurnStatus } from './turn-status.js';
import { TurnStatusRoute } from './turn-status-route.decorator.js';

/** The two poll routes. `current` is declared first so it never reads as a promptId. */
@ApiTags('turns')
@Controller('session/:id/turns')
export class TurnsController {
  constructor(private readonly turns: TurnStatusService) {}

  @TurnStatusRoute('current', 'The running prompt, else the queued head, else the newest settled one, else idle', [
    'session_not_found',
    'invalid_transcript_cursor',
  ])
  current(@Param('id') sessionId: string): Promise<TurnStatus> {
    return this.turns.getCurrent(sessionId);
  }

  @TurnStatusRoute(':promptId', 'The status of one prompt', ['session_not_found', 'prompt_not_found', 'invalid_transcript_cursor'])
  @ApiParam({ name: 'promptId', description: 'The promptId returned by POST /session/{id}/prompt.', schema: { type: 'string' } })
  exact(@Param('id') sessionId: string, @Param('promptId') promptId: string): Promise<TurnStatus> {
    return this.turns.getTurn(sessionId, promptId);
  }
}
