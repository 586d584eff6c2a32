import { Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { TurnStatusService } from './turn-status.service.js';
import type { TurnStatus } from './turn-status.js';
import { TurnStatusRoute } from './turn-status-route.decorator.js';

/** The two poll routes. `current` is declared first so it never reads as a promptId. */
@ApiTags('turns')
@Controller('session/:id/turns')
export class TurnsController {
  constructor(private readonly turns: TurnStatusService) {}

  @TurnStatusRoute('current', 'session_not_found')
  current(@Param('id') sessionId: string): Promise<TurnStatus> {
    return this.turns.getCurrent(sessionId);
  }

  @TurnStatusRoute(':promptId', 'session_not_found, prompt_not_found')
  exact(@Param('id') sessionId: string, @Param('promptId') promptId: string): Promise<TurnStatus> {
    return this.turns.getTurn(sessionId, promptId);
  }
}
