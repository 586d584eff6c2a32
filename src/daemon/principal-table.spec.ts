import { PrincipalTable } from './principal-table.js';
import { tokenDigest } from './tokens-file.js';

const entry = (principal: string, token: string, operator = false) => ({ principal, digest: tokenDigest(token), operator });

describe('PrincipalTable', () => {
  const table = new PrincipalTable([entry('alice', 'tok-alice'), entry('root', 'tok-root', true)]);

  it("finds each token's principal", () => {
    expect(table.authenticate('Bearer tok-alice')).toEqual({ name: 'alice', operator: false });
    expect(table.authenticate('bearer   tok-root ')).toEqual({ name: 'root', operator: true });
    expect(table.size).toBe(2);
  });

  it('knows nobody by a missing, malformed or wrong token', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'tok-alice',
      'Basic tok-alice',
      'Bearer tok-alice x',
      'Bearer tok-alic',
      ['Bearer tok-alice'],
    ]) {
      expect(table.authenticate(header)).toBeUndefined();
    }
  });

  it('never takes a missing header for the empty token', () => {
    expect(new PrincipalTable([entry('empty', '')]).authenticate(undefined)).toBeUndefined();
  });

  it('finds one principal among 1,000', () => {
    const many = new PrincipalTable(Array.from({ length: 1000 }, (_, i) => entry(`p${i}`, `tok-${i}`, i === 999)));
    expect(many.authenticate('Bearer tok-0')).toEqual({ name: 'p0', operator: false });
    expect(many.authenticate('Bearer tok-999')).toEqual({ name: 'p999', operator: true });
    expect(many.authenticate('Bearer tok-1000')).toBeUndefined();
  });
});
