import {
  ArgumentsHost,
  BadRequestException,
  Catch,
  Controller,
  ExceptionFilter,
  Get,
  HttpException,
  Module,
  type INestApplication,
} from '@nestjs/common';
import { APP_FILTER, HttpAdapterHost } from '@nestjs/core';
import request from 'supertest';
import { ApiException, ApiExceptionFilter } from '../src/index.js';
import { createTurnsTestingApp } from '../src/testing/index.js';
import { ADAPTERS } from './support/test-daemon.js';

/** A host's own routes: one refusing with Nest's exception, one with a code of its own. */
@Controller('orders')
class OrdersController {
  @Get('bad')
  bad(): never {
    throw new BadRequestException('orderId is required');
  }
  @Get('locked')
  locked(): never {
    throw new ApiException(409, 'order_locked', 'The order is locked', { orderId: 'o-1' });
  }
}

/** A host's global filter of its own shape: `{message}`. */
@Catch()
class HostShapeFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}
  catch(exception: unknown, host: ArgumentsHost): void {
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    const message = exception instanceof Error ? exception.message : 'error';
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), { message }, status);
  }
}

@Module({ controllers: [OrdersController] })
class OrdersModule {}
@Module({ controllers: [OrdersController], providers: [{ provide: APP_FILTER, useClass: HostShapeFilter }] })
class OrdersWithFilterModule {}
@Module({ controllers: [OrdersController], providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }] })
class OrdersWithApiFilterModule {}

/**
 * Why docs/mounting.md does not offer ApiExceptionFilter as a host's global
 * filter (docs/decisions.md): the turn routes carry it themselves, whatever
 * the host's filter; a host keeps its own errors' shape and messages, and an
 * ApiException of its own is answered as `{error, code}` by Nest's filter too.
 */
describe.each(ADAPTERS)("errors of a host's own routes beside the turn routes (%s)", (adapter) => {
  let app: INestApplication | undefined;
  afterEach(() => app?.close());
  const start = async (module: new () => unknown) => {
    const kit = await createTurnsTestingApp({ adapter, imports: [module], ports: 'in-memory' });
    kit.bridge.addSession('s1', { clientIds: ['c1'] });
    app = kit.app;
    return request(app.getHttpServer());
  };

  it("with Nest's own filter: the host's errors keep Nest's shape, its ApiException answers {error, code}, the turn routes theirs", async () => {
    const http = await start(OrdersModule);
    await http.get('/orders/bad').expect(400, { message: 'orderId is required', error: 'Bad Request', statusCode: 400 });
    await http.get('/orders/locked').expect(409, { error: 'The order is locked', code: 'order_locked', orderId: 'o-1' });
    await http.get('/session/nope/turns/current').expect(404, { error: 'Session not found', code: 'session_not_found', sessionId: 'nope' });
    await http
      .get('/session/s1/turns/current?activity=maybe')
      .expect(400, { error: 'activity must be true or false', code: 'invalid_activity' });
  });

  it("with a global filter of the host's own: the turn routes still answer {error, code}", async () => {
    const http = await start(OrdersWithFilterModule);
    await http.get('/orders/bad').expect(400, { message: 'orderId is required' });
    await http.get('/session/nope/turns/current').expect(404, { error: 'Session not found', code: 'session_not_found', sessionId: 'nope' });
  });

  it("with ApiExceptionFilter global: the host's own messages are replaced by the catalogue's (why it is not offered)", async () => {
    const http = await start(OrdersWithApiFilterModule);
    await http.get('/orders/bad').expect(400, { error: 'Invalid request body', code: 'invalid_request' });
    await http.get('/orders/locked').expect(409, { error: 'The order is locked', code: 'order_locked', orderId: 'o-1' });
  });
});
