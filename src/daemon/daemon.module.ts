import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { BEARER_TOKEN, BearerTokenGuard } from '../auth/bearer-token.guard.js';
import { PromptsController } from '../bridge/prompts.controller.js';
import { ApiExceptionFilter } from '../common/api-exception.filter.js';
import type { Clock } from '../common/clock.js';
import { createValidationPipe } from '../common/validation.pipe.js';
import type { AgentEngine } from '../engines/agent-engine.js';
import { EventsController } from '../events/events.controller.js';
import { RuntimeModule } from '../runtime/runtime.module.js';
import { SessionsController } from '../sessions/sessions.controller.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import { TurnsModule } from '../turns/turns.module.js';
import { createEngine } from './create-engine.js';
import type { DaemonConfig } from './daemon-config.js';
import { SystemController } from './system.controller.js';

/** Replacements for tests and embedding hosts. */
export interface DaemonOverrides {
  engine?: AgentEngine;
  clock?: Clock;
  scanLimits?: Partial<TranscriptScanLimits>;
}

/** The runnable daemon: the reference runtime, `TurnsModule`, and the daemon's own routes. */
@Module({})
export class DaemonModule {
  static forRoot(config: DaemonConfig, overrides: DaemonOverrides = {}): DynamicModule {
    const runtime = RuntimeModule.forRoot({
      workspaces: config.workspaces,
      dataDir: config.dataDir,
      chatRecording: config.chatRecording,
      maxPendingPrompts: config.maxPendingPrompts,
      promptDeadlineMs: config.promptDeadlineMs,
      engine: overrides.engine ?? createEngine(config),
      clock: overrides.clock,
      scanLimits: overrides.scanLimits,
    });
    return {
      module: DaemonModule,
      imports: [TurnsModule.forRoot({ imports: [runtime] })],
      controllers: [SystemController, SessionsController, PromptsController, EventsController],
      providers: [
        { provide: BEARER_TOKEN, useValue: config.token },
        { provide: APP_GUARD, useClass: BearerTokenGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
