import type { ExecutionContext } from '@nestjs/common';
import { ClientIdGuard, CLIENT_ID_REQUEST_KEY, type GuardedRequest } from './client-id.guard.js';
import { SessionClientLookup } from './session-client-lookup.js';

class Lookup extends SessionClientLookup {
  hasSession = jest.fn((id: string) => id === 'live');
  isClientRegistered = jest.fn((_id: string, client: string) => client === 'client_ok');
}

function context(request: object): ExecutionContext {
  return { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
}

describe('ClientIdGuard', () => {
  const options = { header: 'x-qwen-client-id', requireClientId: false };

  it('checks the session before anything about the client id', () => {
    const lookup = new Lookup();
    const guard = new ClientIdGuard(lookup, options);
    expect(() => guard.canActivate(context({ params: { id: 'gone' }, headers: { 'x-qwen-client-id': '!!' } }))).toThrow(
      expect.objectContaining({ code: 'session_not_found' }),
    );
    expect(lookup.isClientRegistered).not.toHaveBeenCalled();
  });

  it('checks the format before the registration', () => {
    const lookup = new Lookup();
    const guard = new ClientIdGuard(lookup, options);
    expect(() => guard.canActivate(context({ params: { id: 'live' }, headers: { 'x-qwen-client-id': 'a b' } }))).toThrow(
      expect.objectContaining({ code: 'invalid_client_id', details: {} }),
    );
    expect(lookup.isClientRegistered).not.toHaveBeenCalled();
  });

  it('tells a malformed client id from an unregistered one by its message (same code)', () => {
    const guard = new ClientIdGuard(new Lookup(), options);
    const refusal = (clientId: string) => {
      try {
        guard.canActivate(context({ params: { id: 'live' }, headers: { 'x-qwen-client-id': clientId } }));
      } catch (error) {
        return error as { code: string; message: string };
      }
      throw new Error('accepted');
    };
    const malformed = refusal('a b');
    const unregistered = refusal('client_other');
    expect([malformed.code, unregistered.code]).toEqual(['invalid_client_id', 'invalid_client_id']);
    expect(malformed.message).toMatch(/malformed/);
    expect(unregistered.message).toMatch(/not registered/);
  });

  it('leaves the accepted client id on the request, and lets anonymous requests through', () => {
    const guard = new ClientIdGuard(new Lookup(), options);
    const request: Record<string, unknown> = { params: { id: 'live' }, headers: { 'x-qwen-client-id': 'client_ok' } };
    expect(guard.canActivate(context(request))).toBe(true);
    expect(request[CLIENT_ID_REQUEST_KEY]).toBe('client_ok');
    expect(guard.canActivate(context({ params: { id: 'live' }, headers: {} }))).toBe(true);
    expect(() =>
      new ClientIdGuard(new Lookup(), { ...options, requireClientId: true }).canActivate(context({ params: { id: 'live' }, headers: {} })),
    ).toThrow(expect.objectContaining({ code: 'invalid_client_id' }));
  });

  it('can be subclassed to read the session id from elsewhere', () => {
    class QueryGuard extends ClientIdGuard {
      protected override getSessionId(request: GuardedRequest): string {
        return String(request.query?.session ?? '');
      }
    }
    const guard = new QueryGuard(new Lookup(), options);
    expect(guard.canActivate(context({ query: { session: 'live' }, headers: {} }))).toBe(true);
  });
});
