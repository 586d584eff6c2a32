import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ClientIdGuard, TurnStatusService } from 'nest-turn-status';
import { AppService } from './app.service';

@Controller()
export class AppController {
  constructor(
    private readonly appService: AppService,
    private readonly turns: TurnStatusService,
  ) {}

  @Get()
  getHello(): string {
    return this.appService.getHello();
  }

  /** The host's own session route: behind the package's guard, answered from its service. */
  @Get('sessions/:id/summary')
  @UseGuards(ClientIdGuard)
  async summary(@Param('id') id: string) {
    const current = await this.turns.getCurrent(id);
    return { sessionId: id, state: current.state };
  }
}
