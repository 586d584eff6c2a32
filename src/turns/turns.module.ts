import { Module, type DynamicModule } from '@nestjs/common';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { ClientIdOptions, DEFAULT_CLIENT_ID_HEADER } from '../client-id/client-id-options.js';
import { SessionClientLookup } from '../client-id/session-client-lookup.js';
import { TurnStatusService } from './turn-status.service.js';
import { withTurnRoutes } from './turn-routes.js';
import { TurnWaitService } from './wait/turn-wait.service.js';
import {
  TURNS_MODULE_OPTIONS,
  TurnsConfigurableModule,
  type TURNS_ASYNC_OPTIONS_TYPE,
  type TURNS_OPTIONS_TYPE,
  type TurnsModuleOptions,
} from './turns.module-definition.js';

/**
 * The turn status routes, their service and the shared `ClientIdGuard` (global), over the two ports the host supplies
 * (docs/mounting.md#ports-that-inject-your-runtime); its routes are documented as its options say.
 *
 * ```ts
 * TurnsModule.forRoot({ imports: [MyRuntimeModule] })            // module exports both tokens (and what they inject)
 * TurnsModule.forRoot({ bridgeOverlay: MyBridge, transcriptScan: MyScan }) // ports that inject nothing
 * TurnsModule.forRoot({ imports: [runtime], sessionLookup: SessionRegistry }) // the guard asks the registry
 * ```
 *
 * @publicApi
 */
@Module({
  providers: [
    TurnStatusService,
    TurnWaitService,
    ClientIdGuard,
    {
      provide: ClientIdOptions,
      inject: [TURNS_MODULE_OPTIONS],
      useFactory: (options: TurnsModuleOptions): ClientIdOptions => ({
        header: (options.clientIdHeader ?? DEFAULT_CLIENT_ID_HEADER).toLowerCase(),
        requireClientId: options.requireClientId ?? false,
        ...(options.principal && { principal: options.principal }),
      }),
    },
  ],
  exports: [TurnStatusService, TurnWaitService, ClientIdGuard, ClientIdOptions, SessionClientLookup],
})
export class TurnsModule extends TurnsConfigurableModule {
  static override forRoot(options: typeof TURNS_OPTIONS_TYPE): DynamicModule {
    return withTurnRoutes(super.forRoot(options));
  }

  static override forRootAsync(options: typeof TURNS_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withTurnRoutes(super.forRootAsync(options));
  }
}
