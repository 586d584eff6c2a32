import type { ExecutionContext } from '@nestjs/common';
import { ApiException } from '../errors/api-exception.js';
import { TurnWebhookGuard } from './turn-webhook.guard.js';
import { signTurnWebhook } from './turn-webhook-signature.js';
import { generateWebhookSecret } from './webhook-secret.js';

/** An HTTP execution context over one request object. */
function contextOf(request: object): ExecutionContext {
  return { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
}

describe('TurnWebhookGuard', () => {
  it.each([undefined, '', 'secret', 'whsec_'])('refuses to be made with a secret that cannot verify anything (%j)', (secret) => {
    expect(() => new TurnWebhookGuard(secret)).toThrow(/^TurnWebhookGuard needs the subscription's signing secret/);
  });

  it('lets a signed delivery through with its event, and answers 401 for one signed with another secret', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({
      type: 'turn.cancelled',
      timestamp: 1,
      data: { sessionId: 's', promptId: 'p', state: 'cancelled', endedAt: 1 },
    });
    const guard = new TurnWebhookGuard(secret);
    const request = { headers: signTurnWebhook(secret, 'msg_1', Date.now(), body), rawBody: Buffer.from(body) } as Record<string, unknown>;
    expect(guard.canActivate(contextOf(request))).toBe(true);
    expect(request.turnWebhook).toEqual(JSON.parse(body));

    const forged = { headers: signTurnWebhook(generateWebhookSecret(), 'msg_1', Date.now(), body), rawBody: Buffer.from(body) };
    const refused = (() => {
      try {
        return guard.canActivate(contextOf(forged));
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ApiException);
    expect((refused as ApiException).getStatus()).toBe(401);
  });
});
