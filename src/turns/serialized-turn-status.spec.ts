import { clientPseudonym } from '../client-id/client-pseudonym.js';
import { pseudonymousStatus, serializeTurnStatus } from './serialized-turn-status.js';
import type { TurnStatus } from './turn-status.js';

const ID = 'client_4f1c9a7e-0d2b-4c3e-8a5f-6b7c8d9e0f1a';

describe('serializeTurnStatus, per reader', () => {
  const status: TurnStatus = {
    sessionId: 's',
    state: 'completed',
    promptId: 'p',
    originatorClientId: ID,
    endedAt: 1,
    resultText: 'done',
  };

  it('names the originator by its pseudonym to everyone but itself', () => {
    for (const reader of [undefined, 'client_other']) {
      const { body } = serializeTurnStatus(status, reader);
      expect(body).not.toContain(ID);
      expect(JSON.parse(body)).toEqual({ ...status, originatorClientId: clientPseudonym('s', ID) });
    }
  });

  it('shows the originator its own id, in the same bytes otherwise, under its own ETag', () => {
    const shared = serializeTurnStatus(status);
    const own = serializeTurnStatus(status, ID);
    expect(own.body).toBe(JSON.stringify(status));
    expect(own.etag).not.toBe(shared.etag);
    expect(own.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
  });

  it('computes each form once per status object: a settled poll serializes nothing again', () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const fresh = { ...status };
      serializeTurnStatus(fresh);
      serializeTurnStatus(fresh, ID);
      const calls = stringify.mock.calls.length;
      for (let i = 0; i < 5; i += 1) {
        expect(serializeTurnStatus(fresh, ID)).toBe(serializeTurnStatus(fresh, ID));
        expect(serializeTurnStatus(fresh)).toBe(serializeTurnStatus(fresh, 'client_other'));
      }
      expect(stringify.mock.calls.length).toBe(calls);
    } finally {
      stringify.mockRestore();
    }
  });

  it('swaps only the field: a prompt text that spells the pseudonym or the field stays as it was', () => {
    const pseudonym = clientPseudonym('s', ID);
    const tricky = { ...status, promptText: `"originatorClientId":"${pseudonym}"`, resultText: pseudonym };
    const own = JSON.parse(serializeTurnStatus(tricky, ID).body) as Record<string, unknown>;
    expect(own).toEqual(tricky);
  });

  it('leaves a status without an originator, and an idle one, as they are', () => {
    const anonymous: TurnStatus = { sessionId: 's', state: 'queued', promptId: 'p', queuedAt: 1 };
    expect(serializeTurnStatus(anonymous, ID).body).toBe(JSON.stringify(anonymous));
    expect(pseudonymousStatus(anonymous)).toBe(anonymous);
    const idle: TurnStatus = { sessionId: 's', state: 'idle' };
    expect(serializeTurnStatus(idle, ID).body).toBe(JSON.stringify(idle));
  });
});
