import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionClientLookup } from '../client-id/session-client-lookup.js';
import { FrontRequest } from '../http/front-door.js';
import { setPrincipal } from '../http/request-principal.js';
import { anonymousKey, rateLimitKey } from './rate-limit-key.js';
import { issuedClientId, MAX_CLIENT_KEYS, rateLimitStage } from './rate-limit.stage.js';
import type { RateLimits, RateLimitVerdict } from './rate-limits.js';

const SESSION = '0b7e8a52-2f0c-4a57-9d6e-6f1f4d1c0a11';
const ISSUED = 'client_issued';
const HEADER = 'x-qwen-client-id';

/** The registry's answer: `client_issued` is registered on SESSION, nothing else anywhere. */
const clients: SessionClientLookup = {
  hasSession: (id) => id === SESSION,
  isClientRegistered: (id, clientId) => id === SESSION && clientId === ISSUED,
};

function front(url: string, clientId?: string, method = 'GET'): FrontRequest {
  const req = { url, method, headers: clientId === undefined ? {} : { [HEADER]: clientId } } as unknown as IncomingMessage;
  return new FrontRequest(req, {} as ServerResponse, undefined);
}

describe('issuedClientId', () => {
  it('is the id only when the session the path names was issued it', () => {
    expect(issuedClientId(front(`/session/${SESSION}/turns/current`, ISSUED), clients, HEADER)).toBe(ISSUED);
    expect(issuedClientId(front(`/session/${SESSION}/turns/current`, 'client_minted'), clients, HEADER)).toBeUndefined();
    expect(issuedClientId(front(`/session/${SESSION}/turns/current`, 'not well formed!'), clients, HEADER)).toBeUndefined();
    expect(issuedClientId(front('/capabilities', ISSUED), clients, HEADER)).toBeUndefined();
    expect(issuedClientId(front(`/session/5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a/turns/current`, ISSUED), clients, HEADER)).toBeUndefined();
    expect(issuedClientId(front(`/session/${SESSION}`), clients, HEADER)).toBeUndefined();
  });
});

describe('rateLimitStage', () => {
  /** Runs `request` through the stage against buckets that record each key drawn on; resolves once it passed. */
  function harness(verdict: RateLimitVerdict = { allowed: true }, lookup = clients) {
    const drawn: Array<[string, string]> = [];
    const limits = {
      consume: (tier: string, key: string) => {
        drawn.push([tier, key]);
        return Promise.resolve(verdict);
      },
    } as unknown as RateLimits;
    const stage = rateLimitStage(limits, { clients: lookup, header: HEADER, windowMs: 60_000, now: () => 0 });
    const pass = (request: FrontRequest) => new Promise<void>((resolve) => stage(request, resolve));
    return { drawn, stage, pass };
  }

  it('draws on the issued id own key, and on the principal anonymous key for any other id', async () => {
    const { drawn, pass } = harness();
    const issued = front(`/session/${SESSION}/turns/current`, ISSUED);
    setPrincipal(issued.req, { name: 'alice', operator: false });
    await pass(issued);
    await pass(front(`/session/${SESSION}/turns/current`, 'client_minted'));
    await pass(front(`/session/${SESSION}/prompt`, ISSUED, 'POST'));
    expect(drawn).toEqual([
      ['read', rateLimitKey('alice', ISSUED)],
      ['read', anonymousKey(undefined)],
      ['prompt', rateLimitKey(undefined, ISSUED)],
    ]);
  });

  it('passes exempt requests without drawing', async () => {
    const { drawn, pass } = harness();
    await pass(front(`/session/${SESSION}/events`, ISSUED));
    await pass(front('/health'));
    expect(drawn).toEqual([]);
  });

  it('past the key bound, a new caller draws on its principal anonymous key', async () => {
    // Every id issued: each is a caller key of its own, until the bound is full.
    const { drawn, pass } = harness(undefined, { hasSession: () => true, isClientRegistered: () => true });
    for (let i = 0; i <= MAX_CLIENT_KEYS; i++) await pass(front(`/session/${SESSION}/turns/current`, `client_${i}`));
    expect(drawn.at(-2)).toEqual(['read', rateLimitKey(undefined, `client_${MAX_CLIENT_KEYS - 1}`)]);
    expect(drawn.at(-1)).toEqual(['read', anonymousKey(undefined)]);
  });

  it('answers 429 itself over the budget, with the peer headers', async () => {
    const { stage } = harness({ allowed: false, limit: 12, retryAfterMs: 41_250 });
    const sent: Array<{ status: number; body: unknown; headers: Record<string, unknown> }> = [];
    const request = front(`/session/${SESSION}/turns/current`, ISSUED);
    (request.req as unknown as { resume: () => void }).resume = () => undefined;
    request.sendError = (error) => sent.push({ status: error.getStatus(), body: error.toBody(), headers: error.headers });
    stage(request, () => sent.push({ status: 0, body: 'passed', headers: {} }));
    await Promise.resolve();
    await Promise.resolve();
    expect(sent).toEqual([
      {
        status: 429,
        body: { error: 'Rate limit exceeded', code: 'rate_limit_exceeded', tier: 'read', retryAfterMs: 41_250 },
        headers: { 'X-RateLimit-Remaining': '0', 'Retry-After': '42', 'X-RateLimit-Limit': '12', 'X-RateLimit-Reset': '42' },
      },
    ]);
  });
});
