import {
  ConfigurableModuleBuilder,
  type ExistingProvider,
  type FactoryProvider,
  type ModuleMetadata,
  type Provider,
  type Type,
  type ValueProvider,
} from '@nestjs/common';
import type { Clock } from '../common/clock.js';
import { AgentEngine } from '../engines/agent-engine.js';
import { EchoEngine } from '../engines/echo.engine.js';
import { LocalSessionOwnership, SessionOwnership } from '../sessions/session-ownership.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import type { WebhookOptions } from '../webhooks/webhook-settings.js';

/**
 * Configuration of {@link RuntimeModule}.
 *
 * @publicApi
 */
export interface RuntimeModuleOptions {
  /** Absolute workspace paths; the first is primary. */
  workspaces: string[];
  /** Root of the transcripts: `<dataDir>/<workspace>/chats/<sessionId>.jsonl`. */
  dataDir: string;
  /** Write JSONL transcripts (needed to find results after a restart). @default true */
  chatRecording?: boolean;
  /** Admitted prompts per session, running included. @default 5 */
  maxPendingPrompts?: number;
  /** Server deadline per prompt from admission, in ms; a request's `deadlineMs` only narrows it. @default none */
  promptDeadlineMs?: number;
  /** Terminal statuses kept in memory per session. @default 64 */
  overlaySize?: number;
  /** Bounds of one backward transcript scan. @default TRANSCRIPT_SCAN_LIMITS */
  scanLimits?: Partial<TranscriptScanLimits>;
  /** Live sessions at once; more → `503 too_many_sessions`. @default 1000 */
  maxSessions?: number;
  /** Open SSE streams at once, and per session; more → `503 too_many_streams`. @default 1000, 16 */
  maxSseStreams?: number;
  maxSseStreamsPerSession?: number;
  /** A `: heartbeat` comment is sent on every event stream this often, in ms. @default 15000 */
  sseHeartbeatMs?: number;
  /** Largest prompt, counted as the UTF-16 code units of its blocks' text and data; larger → `413 prompt_too_large`. @default 1 Mi */
  maxPromptChars?: number;
  /** Rewind, fork and load refuse a larger transcript (`413 transcript_too_large`). @default 256 MiB */
  maxTranscriptBytes?: number;
  /** `Idempotency-Key`s remembered per daemon (oldest first out). @default 10000 */
  maxIdempotencyKeys?: number;
  /** How long an `Idempotency-Key` is remembered from its first use, in ms. @default 86400000 (a day) */
  idempotencyTtlMs?: number;
  /** Turn webhooks: the operator's endpoint, the SSRF allow list, timeouts and retries. */
  webhooks?: WebhookOptions;
  /** Source of time. @default the system clock */
  clock?: Clock;
}

/**
 * How the runtime gets its {@link AgentEngine}: a class (instantiated by Nest,
 * so it can inject dependencies), a factory, or a value.
 *
 * @publicApi
 */
export type AgentEngineProvider =
  Type<AgentEngine> | Omit<FactoryProvider<AgentEngine>, 'provide'> | Omit<ValueProvider<AgentEngine>, 'provide'>;

/**
 * How the runtime gets its {@link SessionOwnership}: a class, a factory, a
 * value, or an existing provider (e.g. one exported by a module in `imports`).
 *
 * @publicApi
 */
export type SessionOwnershipProvider =
  | Type<SessionOwnership>
  | Omit<FactoryProvider<SessionOwnership>, 'provide'>
  | Omit<ValueProvider<SessionOwnership>, 'provide'>
  | Omit<ExistingProvider<SessionOwnership>, 'provide'>;

/**
 * Static extras of `RuntimeModule.forRoot` / `forRootAsync`.
 *
 * @publicApi
 */
export interface RuntimeModuleExtras {
  /** The engine sessions run prompts through. @default the offline `EchoEngine` */
  engine?: AgentEngineProvider;
  /** Who owns a session (a cluster directory). @default this process owns every session it starts */
  ownership?: SessionOwnershipProvider;
  /** Modules the engine's (or the async options factory's) dependencies come from. */
  imports?: ModuleMetadata['imports'];
}

/** The engine registration; the offline echo engine unless the host names one. */
function engineProvider(engine: AgentEngineProvider | undefined): Provider {
  if (engine === undefined) return { provide: AgentEngine, useFactory: () => new EchoEngine() };
  if (typeof engine === 'function') return { provide: AgentEngine, useClass: engine };
  return { ...engine, provide: AgentEngine };
}

function ownershipProvider(ownership: SessionOwnershipProvider | undefined): Provider {
  if (ownership === undefined) return { provide: SessionOwnership, useClass: LocalSessionOwnership };
  if (typeof ownership === 'function') return { provide: SessionOwnership, useClass: ownership };
  return { ...ownership, provide: SessionOwnership } as Provider;
}

export const { ConfigurableModuleClass: RuntimeConfigurableModule, MODULE_OPTIONS_TOKEN: RUNTIME_MODULE_OPTIONS } =
  new ConfigurableModuleBuilder<RuntimeModuleOptions>({ moduleName: 'Runtime' })
    .setClassMethodName('forRoot')
    .setExtras<RuntimeModuleExtras>({}, (definition, extras) => ({
      ...definition,
      imports: [...(definition.imports ?? []), ...(extras.imports ?? [])],
      providers: [...(definition.providers ?? []), engineProvider(extras.engine), ownershipProvider(extras.ownership)],
    }))
    .build();
