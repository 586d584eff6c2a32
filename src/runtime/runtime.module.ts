import { Module } from '@nestjs/common';
import { BRIDGE_OPTIONS, BRIDGE_SETTINGS, type BridgeOptions } from '../bridge/bridge.settings.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { pickSettings } from '../common/settings/setting.js';
import { PromptsController } from '../prompts/prompts.controller.js';
import { SessionRunner } from '../bridge/session-runner.js';
import { Clock, SystemClock } from '../common/clock.js';
import { EventsController } from '../events/events.controller.js';
import { EVENT_OPTIONS, type EventOptions } from '../events/events.settings.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import { SessionsController } from '../sessions/sessions.controller.js';
import { SessionRewindService } from '../sessions/session-rewind.service.js';
import { SessionPresenceService } from '../sessions/session-presence.service.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { LostPromptSweep } from '../sessions/lost-prompt-sweep.js';
import { IdleSessionReaper } from '../sessions/idle-session-reaper.js';
import { SessionOwnership } from '../sessions/session-ownership.js';
import { OwnerWriteFence, SessionWriteFence } from '../sessions/session-write-fence.js';
import { SESSION_OPTIONS, type SessionOptions } from '../sessions/sessions.settings.js';
import { CHAT_RECORDING_OPTIONS, ChatRecordingService, type ChatRecordingOptions } from '../transcript/chat-recording.service.js';
import { JsonlTranscriptScanService, TRANSCRIPT_SCAN_OPTIONS } from '../transcript/jsonl-transcript-scan.service.js';
import { LedgerTranscriptScanService } from '../ledger/ledger-transcript-scan.service.js';
import { PromptLedger } from '../ledger/prompt-ledger.js';
import { BridgeOverlayProvider } from '../turns/bridge-overlay.provider.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { IdempotencyStore } from '../idempotency/idempotency-store.js';
import { TranscriptIdempotencyKeys } from '../idempotency/transcript-idempotency-keys.js';
import { TurnWebhookEvents } from '../webhooks/turn-webhook-events.js';
import { QueuedWebhookEvents } from '../webhooks/queued-webhook-events.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { WebhookOutboxAdoption } from '../webhooks/webhook-outbox-adoption.js';
import { WEBHOOK_SETTINGS, webhookSettings } from '../webhooks/webhooks.settings.js';
import { WebhookSubscriptions } from '../webhooks/webhook-subscriptions.service.js';
import { WebhooksController } from '../webhooks/webhooks.controller.js';
import { PermissionBroker } from '../permissions/permission-broker.js';
import { PERMISSION_OPTIONS, PERMISSION_SETTINGS, type PermissionOptions } from '../permissions/permissions.settings.js';
import { PermissionsController } from '../permissions/permissions.controller.js';
import { PermissionWebhookEvents } from '../permissions/permission-webhook-events.js';
import { valuesOf } from '../common/settings/setting.js';
import { RUNTIME_MODULE_OPTIONS, RuntimeConfigurableModule } from './runtime.module-definition.js';
import { RuntimeSettings, type RuntimeModuleOptions } from './runtime.settings.js';

/**
 * The reference runtime: prompt bridge, sessions, transcripts, events and an agent engine, with their routes; it
 * exports the two ports `TurnsModule` reads. Mount it with `TurnsModule.forRoot({ imports: [runtime] })`, whose
 * `ClientIdGuard` guards its routes (docs/mounting.md#embedding-the-reference-runtime).
 *
 * @publicApi
 */
@Module({
  controllers: [SessionsController, PromptsController, PermissionsController, EventsController, WebhooksController],
  providers: [
    {
      provide: RuntimeSettings,
      inject: [RUNTIME_MODULE_OPTIONS],
      useFactory: (options: RuntimeModuleOptions) => new RuntimeSettings(options),
    },
    { provide: Clock, inject: [RUNTIME_MODULE_OPTIONS], useFactory: (options: RuntimeModuleOptions) => options.clock ?? new SystemClock() },
    {
      provide: BRIDGE_OPTIONS,
      inject: [RuntimeSettings],
      useFactory: (s: RuntimeSettings): BridgeOptions => ({ ...pickSettings(s.values, BRIDGE_SETTINGS), overlaySize: s.overlaySize }),
    },
    {
      provide: EVENT_OPTIONS,
      inject: [RuntimeSettings],
      useFactory: (s: RuntimeSettings): EventOptions => ({
        maxSseStreams: s.maxSseStreams,
        maxSseStreamsPerSession: s.maxSseStreamsPerSession,
        sseHeartbeatMs: s.sseHeartbeatMs,
      }),
    },
    {
      provide: SESSION_OPTIONS,
      inject: [RuntimeSettings],
      useFactory: (s: RuntimeSettings): SessionOptions => ({
        workspaces: s.workspaces,
        primary: s.primary,
        dataDir: s.dataDir,
        maxSessions: s.maxSessions,
        sessionIdleTimeoutMs: s.values.sessionIdleTimeoutMs,
        scanLimits: s.scanLimits,
      }),
    },
    {
      provide: CHAT_RECORDING_OPTIONS,
      // A cluster's fence when one is imported (docs/cluster.md#ownership-ports), else the ownership's confirmation.
      inject: [RuntimeSettings, OwnerWriteFence, { token: SessionWriteFence, optional: true }],
      useFactory: (s: RuntimeSettings, owner: OwnerWriteFence, cluster?: SessionWriteFence): ChatRecordingOptions => {
        const fence = cluster ?? owner;
        return {
          dataDir: s.dataDir,
          enabled: s.chatRecording,
          maxTranscriptBytes: s.maxTranscriptBytes,
          mayWrite: (sessionId) => fence.mayWrite(sessionId),
          fenceOf: (sessionId) => fence.fenceOf(sessionId),
        };
      },
    },
    OwnerWriteFence,
    {
      provide: PERMISSION_OPTIONS,
      inject: [RuntimeSettings],
      useFactory: (s: RuntimeSettings): PermissionOptions => valuesOf(PERMISSION_SETTINGS, pickSettings(s.values, PERMISSION_SETTINGS)),
    },
    PermissionBroker,
    PermissionWebhookEvents,
    { provide: TRANSCRIPT_SCAN_OPTIONS, inject: [RuntimeSettings], useFactory: (s: RuntimeSettings) => s.scanLimits },
    {
      provide: IdempotencyStore,
      inject: [RuntimeSettings, Clock],
      useFactory: (s: RuntimeSettings, clock: Clock) => new IdempotencyStore(s.idempotency, clock),
    },
    IdempotencyInterceptor,
    {
      provide: WEBHOOK_SETTINGS,
      inject: [RUNTIME_MODULE_OPTIONS],
      useFactory: (options: RuntimeModuleOptions) => webhookSettings(options.webhooks, options.dataDir),
    },
    WebhookSubscriptions,
    WebhookDispatcher,
    WebhookOutboxAdoption,
    TurnWebhookEvents,
    QueuedWebhookEvents,
    TranscriptIdempotencyKeys,
    SessionEventBus,
    SessionRegistry,
    { provide: SessionRunner, useExisting: SessionRegistry },
    PromptBridge,
    ChatRecordingService,
    JsonlTranscriptScanService,
    PromptLedger,
    LedgerTranscriptScanService,
    SessionsService,
    LostPromptSweep,
    IdleSessionReaper,
    SessionRewindService,
    SessionPresenceService,
    { provide: BridgeOverlayProvider, useExisting: PromptBridge },
    // The JSONL scan, with the prompt ledger's terminal after an exact miss (docs/ledger.md).
    { provide: TranscriptScanService, useExisting: LedgerTranscriptScanService },
  ],
  // The live counters (sessions, prompts, streams, ownership) are exported for the daemon's status route and metrics.
  exports: [
    BridgeOverlayProvider,
    TranscriptScanService,
    RuntimeSettings,
    PromptBridge,
    PromptLedger,
    SessionRegistry,
    SessionEventBus,
    SessionOwnership,
    WebhookDispatcher,
    PermissionBroker,
    IdleSessionReaper,
  ],
})
export class RuntimeModule extends RuntimeConfigurableModule {}
