import { Module } from '@nestjs/common';
import { TurnsModule } from 'nest-turn-status';
import { HostRuntimeModule } from './host-runtime.module.js';
import { HostSessionsController } from './host-sessions.controller.js';

/**
 * The host app: its runtime, and `TurnsModule` over it. The ports inject the
 * runtime, so `TurnsModule` imports the module that provides both; Nest makes
 * one `HostRuntimeModule`, so the controller and the ports share one runtime.
 */
@Module({
  imports: [HostRuntimeModule, TurnsModule.forRoot({ imports: [HostRuntimeModule] })],
  controllers: [HostSessionsController],
})
export class AppModule {}
