import { clientPseudonym } from '../client-id/client-pseudonym.js';
import { frameForReader, withPseudonyms } from './client-naming.js';

const A = 'client_a1';
const B = 'client_b2';

describe('withPseudonyms', () => {
  it('replaces every field that names a client, and collects each pseudonym with its id', () => {
    const named = new Map<string, string>();
    const data = { requestId: 'r', voterClientId: B, clientId: A, originatorClientId: A };
    const shown = withPseudonyms('s', data, named);
    expect(shown).toEqual({
      requestId: 'r',
      voterClientId: clientPseudonym('s', B),
      clientId: clientPseudonym('s', A),
      originatorClientId: clientPseudonym('s', A),
    });
    expect(data.voterClientId).toBe(B);
    expect([...named]).toEqual(
      expect.arrayContaining([
        [clientPseudonym('s', A), A],
        [clientPseudonym('s', B), B],
      ]),
    );
  });

  it('returns the same object when it names nobody', () => {
    const data = { requestId: 'r' };
    const named = new Map<string, string>();
    expect(withPseudonyms('s', data, named)).toBe(data);
    expect(named.size).toBe(0);
  });
});

describe('frameForReader', () => {
  const named = new Map<string, string>();
  const frame = withPseudonyms('s', { id: 1, data: withPseudonyms('s', { voterClientId: B }, named), originatorClientId: A }, named);

  it('gives a reader it does not name, or an anonymous one, the frame as published', () => {
    expect(frameForReader(frame, named, 'client_c3')).toBe(frame);
    expect(frameForReader(frame, named, undefined)).toBe(frame);
    expect(frameForReader(frame, undefined, A)).toBe(frame);
  });

  it('gives a reader it names its own id, and the others still their pseudonyms', () => {
    const forA = JSON.parse(frameForReader(frame, named, A) as string);
    expect(forA).toEqual({ id: 1, data: { voterClientId: clientPseudonym('s', B) }, originatorClientId: A });
    const forB = JSON.parse(frameForReader(frame, named, B) as string);
    expect(forB).toEqual({ id: 1, data: { voterClientId: B }, originatorClientId: clientPseudonym('s', A) });
  });
});
