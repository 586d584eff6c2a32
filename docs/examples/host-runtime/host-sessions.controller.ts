import { BadRequestException, Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ClientId, ClientIdGuard } from 'nest-turn-status';
import { HostRuntime } from './host-runtime.js';

/** The host's own routes: open a session, admit a prompt (guarded by the module's `ClientIdGuard`). */
@Controller('session')
export class HostSessionsController {
  constructor(private readonly runtime: HostRuntime) {}

  @Post()
  @HttpCode(200)
  open(): { sessionId: string; clientId: string } {
    const clientId = `client_${randomUUID()}`;
    return { sessionId: this.runtime.openSession([clientId]), clientId };
  }

  @Post(':id/prompt')
  @HttpCode(202)
  @UseGuards(ClientIdGuard)
  prompt(
    @Param('id') sessionId: string,
    @Body() body: { text?: unknown } | undefined,
    @ClientId() clientId?: string,
  ): { promptId: string } {
    if (typeof body?.text !== 'string') throw new BadRequestException('text must be a string');
    return { promptId: this.runtime.admit(sessionId, body.text, clientId) };
  }
}
