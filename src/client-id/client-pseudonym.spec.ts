import { CLIENT_ID_PATTERN } from './client-id-pattern.js';
import { clientPseudonym, isPseudonym } from './client-pseudonym.js';

describe('clientPseudonym', () => {
  const id = 'client_0b5a3c1e-3f1d-4a57-9a1e-7c2f1d0e9b11';

  it('is stable for a client within a session', () => {
    expect(clientPseudonym('s1', id)).toBe(clientPseudonym('s1', id));
  });

  it('differs between clients and between sessions', () => {
    expect(clientPseudonym('s1', id)).not.toBe(clientPseudonym('s1', `${id}x`));
    expect(clientPseudonym('s1', id)).not.toBe(clientPseudonym('s2', id));
  });

  it('is never a well-formed client id, and never holds the id', () => {
    const pseudonym = clientPseudonym('s1', id);
    expect(pseudonym).toMatch(/^~[A-Za-z0-9_-]{16}$/);
    expect(CLIENT_ID_PATTERN.test(pseudonym)).toBe(false);
    expect(pseudonym).not.toContain(id);
  });

  it('hides even a short host-chosen id behind the per-process key', () => {
    expect(clientPseudonym('s1', 'alice')).not.toContain('alice');
    expect(clientPseudonym('s1', 'alice')).not.toBe(clientPseudonym('s1', 'bob'));
  });

  it('leaves a pseudonym as it is', () => {
    const pseudonym = clientPseudonym('s1', id);
    expect(clientPseudonym('s1', pseudonym)).toBe(pseudonym);
    expect(isPseudonym(pseudonym)).toBe(true);
    expect(isPseudonym(id)).toBe(false);
  });
});
