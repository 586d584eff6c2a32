import { createParamDecorator, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { apiError } from '../errors/api-errors.js';
import type { TurnWebhookEvent } from './turn-webhook-event.js';
import { TurnWebhookVerificationError, verifyTurnWebhook } from './turn-webhook-signature.js';
import { assertWebhookSecret } from './webhook-secret.js';

/** Where the guard leaves the verified event (`@TurnWebhook()`). */
const EVENT_KEY = 'turnWebhook';

interface ReceivingRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody?: Buffer;
  [EVENT_KEY]?: TurnWebhookEvent;
}

/**
 * Guards a route that receives turn webhooks: `401` unless the signature over the raw body verifies (create the app
 * with `{ rawBody: true }`); the handler gets the event with `@TurnWebhook()` (docs/webhooks.md).
 *
 * @publicApi
 */
export class TurnWebhookGuard implements CanActivate {
  private readonly secret: string;

  constructor(secret: string | undefined) {
    assertWebhookSecret(secret, 'TurnWebhookGuard');
    this.secret = secret;
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<ReceivingRequest>();
    if (!request.rawBody) throw new Error('TurnWebhookGuard needs the raw body: create the Nest app with { rawBody: true }');
    try {
      request[EVENT_KEY] = verifyTurnWebhook(this.secret, request.rawBody, request.headers);
    } catch (error) {
      if (error instanceof TurnWebhookVerificationError) throw apiError('unauthorized', {}, { message: 'Invalid webhook signature' });
      throw error;
    }
    return true;
  }
}

/**
 * The event {@link TurnWebhookGuard} verified.
 *
 * @publicApi
 */
export const TurnWebhook = createParamDecorator(
  (_data: unknown, context: ExecutionContext): TurnWebhookEvent | undefined =>
    context.switchToHttp().getRequest<ReceivingRequest>()[EVENT_KEY],
);
