import {
  ConfigurableModuleBuilder,
  type ExistingProvider,
  type FactoryProvider,
  type ModuleMetadata,
  type Provider,
  type Type,
  type ValueProvider,
} from '@nestjs/common';
import { AgentEngine } from '../engines/agent-engine.js';
import { EchoEngine } from '../engines/echo.engine.js';
import { LocalSessionOwnership, SessionOwnership } from '../sessions/session-ownership.js';
import type { RuntimeModuleOptions } from './runtime.settings.js';

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
