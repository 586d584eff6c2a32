import { applyDecorators, Controller, type DynamicModule, type Type } from '@nestjs/common';
import { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import { ApiParam, ApiTags } from '../common/swagger.js';
import { answeredErrorCodes } from '../errors/api-error-responses.decorator.js';
import { declareErrorCodes } from '../errors/error-response.dto.js';
import { TurnListDocs } from './list/turn-list-route.decorator.js';
import { SessionTurnHandling, TurnStatusDocs, type TurnRouteDocs } from './turn-status-route.decorator.js';
import { TurnStatusService } from './turn-status.service.js';
import { TurnsController as TurnHandlers } from './turns.controller.js';
import { clientIdHeaderParameter } from './turns-openapi.js';
import { TURNS_MODULE_OPTIONS, type TurnsModuleOptions } from './turns.module-definition.js';
import { TurnWaitService } from './wait/turn-wait.service.js';

/** The three routes, `current` declared before `:promptId` so it never reads as a promptId. */
const ROUTES: Record<'list' | 'current' | 'exact', { path: string; docs: (docs: TurnRouteDocs) => MethodDecorator }> = {
  list: { path: '', docs: TurnListDocs },
  current: {
    path: 'current',
    docs: (docs) =>
      TurnStatusDocs(
        {
          path: 'current',
          summary: 'The running prompt, else the queued head, else the newest settled one, else idle',
          errors: ['session_not_found', 'invalid_transcript_cursor'],
          operationId: 'getCurrentTurn',
        },
        docs,
      ),
  },
  exact: {
    path: ':promptId',
    docs: (docs) =>
      applyDecorators(
        TurnStatusDocs(
          {
            path: ':promptId',
            summary: 'The status of one prompt',
            errors: ['session_not_found', 'prompt_not_found', 'invalid_transcript_cursor'],
            operationId: 'getTurn',
            description:
              'Live state, then the terminal overlay, then the bounded transcript scan (docs/turn-routes.md). With the reference runtime, a scan ' +
              'miss is answered from the prompt ledger (docs/ledger.md) before it becomes a 404: a prompt lost when its process died reads ' +
              '`state: error` with `error.code: daemon_lost` (`endedAt`: when `load` settled it); a cancelled, failed or completed ' +
              'one its own state, `stopReason` and error code (no `queuedAt`, no result text). The transcript record wins when there is one.',
          },
          docs,
        ),
        ApiParam({ name: 'promptId', description: "The prompt's id, as its admission returned it.", schema: { type: 'string' } }),
      ),
  },
};

/** A controller class of its own for one `TurnsModule`: its handlers' OpenAPI metadata is then that module's alone. */
function turnsControllerClass(): Type<TurnHandlers> {
  // Named as the handlers are: Nest logs routes by the class name.
  @ApiTags('turns')
  @Controller('session/:id/turns')
  class TurnsController extends TurnHandlers {
    // Its own, so its parameter types are recorded for injection (a class without one records none).
    constructor(turns: TurnStatusService, waits: TurnWaitService, adapterHost: HttpAdapterHost) {
      super(turns, waits, adapterHost);
    }

    override list(...args: Parameters<TurnHandlers['list']>) {
      return super.list(...args);
    }
    override current(...args: Parameters<TurnHandlers['current']>) {
      return super.current(...args);
    }
    override exact(...args: Parameters<TurnHandlers['exact']>) {
      return super.exact(...args);
    }
  }
  for (const [name, route] of Object.entries(ROUTES)) decorate(TurnsController, name, SessionTurnHandling(route.path));
  return TurnsController;
}

function decorate(target: Type, name: string, decorator: MethodDecorator): void {
  const descriptor = Object.getOwnPropertyDescriptor(target.prototype, name)!;
  decorator(target.prototype, name, descriptor);
}

/** Every handler of every controller of an app (own and inherited methods). */
function* handlersOf(modules: ModulesContainer): Generator<object> {
  for (const module of modules.values()) {
    for (const { metatype } of module.controllers.values()) {
      for (let proto = (metatype as Type | null)?.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
        for (const name of Object.getOwnPropertyNames(proto)) {
          const value = Object.getOwnPropertyDescriptor(proto, name)!.value as unknown;
          if (name !== 'constructor' && typeof value === 'function') yield value;
        }
      }
    }
  }
}

/**
 * Mounts the turn routes on a `TurnsModule` definition: a controller class made for it, whose OpenAPI metadata is written
 * once the module's options resolve (before `SwaggerModule.createDocument` can run): the client id header by the host's
 * name, the host's wait bound, and the error codes the app's routes answer (docs/mounting.md#your-openapi-document).
 */
export function withTurnRoutes(definition: DynamicModule): DynamicModule {
  const controller = turnsControllerClass();
  let documented = false;
  const documentRoutes = {
    provide: Symbol('TurnRoutesDocumented'),
    inject: [TURNS_MODULE_OPTIONS, TurnWaitService, ModulesContainer],
    useFactory: (options: TurnsModuleOptions, waits: TurnWaitService, modules: ModulesContainer) => {
      // One definition mounted in two apps documents its routes once (the same options).
      if (!documented) {
        const docs: TurnRouteDocs = { clientIdHeader: clientIdHeaderParameter(options), maxWaitMs: waits.maxWaitMs };
        for (const [name, route] of Object.entries(ROUTES)) decorate(controller, name, route.docs(docs));
        documented = true;
      }
      declareErrorCodes(answeredErrorCodes(handlersOf(modules)));
      return true;
    },
  };
  return {
    ...definition,
    controllers: [...(definition.controllers ?? []), controller],
    providers: [...(definition.providers ?? []), documentRoutes],
  };
}
