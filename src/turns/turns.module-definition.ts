import { ConfigurableModuleBuilder, type ModuleMetadata, type Type } from '@nestjs/common';
import { SessionClientLookup } from '../client-id/session-client-lookup.js';
import type { SettingOptions } from '../common/settings/setting.js';
import { BridgeOverlayProvider } from './bridge-overlay.provider.js';
import { TranscriptScanService } from './transcript-scan.service.js';
import type { WAIT_SETTINGS } from './wait/wait.settings.js';

/**
 * Options of {@link TurnsModule}. `maxWaitMs` (longest a turn request may be
 * held, `?waitMs=` / `Prefer: wait=`) and `maxWaiters` (held at once; more →
 * `503 too_many_waiters`) are the rows of `WAIT_SETTINGS`, defaults included.
 *
 * @publicApi
 */
export interface TurnsModuleOptions extends SettingOptions<typeof WAIT_SETTINGS> {
  /** Header that carries the client id (case-insensitive). @default 'X-Qwen-Client-Id' */
  clientIdHeader?: string;
  /** Refuse anonymous polls and prompts (no or empty client id header). @default false */
  requireClientId?: boolean;
  /**
   * Reads the principal your own guard (registered first, as `APP_GUARD`) decided for a request, `undefined` for none;
   * `ClientIdGuard` then asks your port's `isSessionOf` (docs/mounting.md#ownership).
   * @default none: no ownership check
   */
  principal?: (request: never) => string | undefined;
}

/**
 * Module-level extras: where the two providers come from. Import a module
 * that provides and exports `BridgeOverlayProvider` and
 * `TranscriptScanService` (e.g. the reference `RuntimeModule`) — the way for
 * ports that inject the host's runtime — or, for ports that inject nothing,
 * name the classes here.
 *
 * @publicApi
 */
export interface TurnsModuleExtras {
  /** Modules whose exports satisfy the provider tokens. */
  imports?: ModuleMetadata['imports'];
  /** Implementation of the live side, registered as `BridgeOverlayProvider` inside this module (it can inject only what `imports` export). */
  bridgeOverlay?: Type<BridgeOverlayProvider>;
  /** Implementation of the persisted side, registered as `TranscriptScanService` inside this module. */
  transcriptScan?: Type<TranscriptScanService>;
  /**
   * Where `ClientIdGuard` (and a held request) asks whether a session is live
   * and a client registered: a provider the imported modules export (the
   * reference runtime's `SessionRegistry`). @default the `BridgeOverlayProvider`
   */
  sessionLookup?: Type<SessionClientLookup>;
}

export const {
  ConfigurableModuleClass: TurnsConfigurableModule,
  /** @internal */
  MODULE_OPTIONS_TOKEN: TURNS_MODULE_OPTIONS,
  /** @internal */
  OPTIONS_TYPE: TURNS_OPTIONS_TYPE,
  /** @internal */
  ASYNC_OPTIONS_TYPE: TURNS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<TurnsModuleOptions>({ moduleName: 'Turns' })
  .setClassMethodName('forRoot')
  .setExtras<TurnsModuleExtras>({}, (definition, extras) => {
    const imports = extras.imports ?? [];
    const named = [
      ...(extras.bridgeOverlay ? [{ provide: BridgeOverlayProvider, useClass: extras.bridgeOverlay }] : []),
      ...(extras.transcriptScan ? [{ provide: TranscriptScanService, useClass: extras.transcriptScan }] : []),
      { provide: SessionClientLookup, useExisting: extras.sessionLookup ?? BridgeOverlayProvider },
    ];
    return {
      ...definition,
      // Global like ThrottlerModule: ClientIdGuard (and what it needs) can guard
      // routes of any module, the runtime's own included.
      global: true,
      imports: [...(definition.imports ?? []), ...imports],
      providers: [...(definition.providers ?? []), ...named],
    };
  })
  .build();
