import { Webhook } from 'standardwebhooks';
import { signTurnWebhook, TurnWebhookVerificationError, verifyTurnWebhook } from './turn-webhook-signature.js';
import { generateWebhookSecret, isWebhookSecret } from './webhook-secret.js';

// The test vector published with the Standard Webhooks specification.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signTurnWebhook', () => {
  it('matches the Standard Webhooks test vector', () => {
    expect(signTurnWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp * 1000, VECTOR.body)).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    });
  });

  it('signs what the standardwebhooks verifier and verifyTurnWebhook accept, and nothing else', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ type: 'turn.completed', timestamp: 1, data: { sessionId: 's', state: 'completed' } });
    const headers = signTurnWebhook(secret, 'msg_1', Date.now(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(verifyTurnWebhook(secret, Buffer.from(body), headers)).toEqual(JSON.parse(body));
    expect(() => verifyTurnWebhook(secret, body.replace('completed', 'cancelled'), headers)).toThrow(TurnWebhookVerificationError);
    expect(() => verifyTurnWebhook(generateWebhookSecret(), body, headers)).toThrow(TurnWebhookVerificationError);
    expect(() => verifyTurnWebhook(secret, body, { ...headers, 'webhook-id': 'msg_2' })).toThrow(TurnWebhookVerificationError);
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(() => verifyTurnWebhook(secret, body, unsigned)).toThrow(TurnWebhookVerificationError);
  });

  it('refuses a timestamp more than five minutes off (replays)', () => {
    const secret = generateWebhookSecret();
    const old = signTurnWebhook(secret, 'msg_1', Date.now() - 10 * 60_000, '{"type":"turn.error"}');
    expect(() => verifyTurnWebhook(secret, '{"type":"turn.error"}', old)).toThrow(/too old/);
  });
});

describe('webhook secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    expect(generateWebhookSecret(() => Buffer.alloc(32, 0))).toBe(`whsec_${'A'.repeat(43)}=`);
  });

  it('are recognized only in that form, with a key of at least 24 bytes', () => {
    expect(isWebhookSecret(generateWebhookSecret())).toBe(true);
    expect(isWebhookSecret(VECTOR.secret)).toBe(true);
    expect(isWebhookSecret('whsec_short')).toBe(false);
    expect(isWebhookSecret(generateWebhookSecret().slice(6))).toBe(false);
    expect(isWebhookSecret('whsec_!!!!')).toBe(false);
  });
});

describe('verifyTurnWebhook with a secret that cannot verify anything', () => {
  const body = '{"type":"turn.error"}';
  const headers = signTurnWebhook(generateWebhookSecret(), 'msg_1', Date.now(), body);

  it.each([
    [undefined, 'got undefined'],
    ['', 'got an empty string'],
    ['   ', 'got an empty string'],
    ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'got a string that does not start with whsec_'],
    ['whsec_short', 'got a whsec_ string whose key is not base64 of at least 24 bytes'],
  ])('throws a TypeError naming what it got (%j), not a verification error', (secret, got) => {
    const call = () => verifyTurnWebhook(secret, body, headers);
    expect(call).toThrow(TypeError);
    expect(call).toThrow(
      `verifyTurnWebhook needs the subscription's signing secret: the whsec_… string POST /session/:id/webhooks answered (${got})`,
    );
  });

  it('never puts the value it refused in the message', () => {
    expect(() => verifyTurnWebhook('not-a-secret-value', body, headers)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('not-a-secret-value') }),
    );
  });
});
