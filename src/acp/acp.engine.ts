import { Logger } from '@nestjs/common';
import { AgentEngine, type EngineSession, type EngineSessionContext } from '../engines/agent-engine.js';
import { AcpEngineSession } from './acp-engine-session.js';

/**
 * Drives any Agent Client Protocol agent command (e.g. `qwen --acp`), one process per session.
 *
 * @publicApi
 */
export class AcpEngine extends AgentEngine {
  readonly name = 'acp';
  private readonly logger = new Logger('AcpEngine');

  constructor(private readonly command: string) {
    super();
  }

  async openSession(context: EngineSessionContext): Promise<EngineSession> {
    return new AcpEngineSession(this.command, context, this.logger);
  }
}
