import { normalizeTurnError } from './normalize-turn-error.js';

describe('normalizeTurnError', () => {
  it('reads message and string code of an Error', () => {
    const error = Object.assign(new Error('boom'), { code: 'E_BOOM' });
    expect(normalizeTurnError(error)).toEqual({ message: 'boom', code: 'E_BOOM' });
  });

  it('reports a numeric JSON-RPC code as a string', () => {
    expect(normalizeTurnError({ message: 'Internal error', code: -32603 })).toEqual({
      message: 'Internal error',
      code: '-32603',
    });
    expect(normalizeTurnError({ message: 'x', rpcCode: -32000 })).toEqual({ message: 'x', code: '-32000' });
  });

  it('never invokes a getter', () => {
    const getter = jest.fn(() => 'secret');
    const error = Object.defineProperty({}, 'message', { get: getter });
    Object.defineProperty(error, 'code', { get: getter });
    expect(normalizeTurnError(error)).toEqual({ message: 'Unknown error' });
    expect(getter).not.toHaveBeenCalled();
  });

  it('survives a proxy whose traps throw, and never calls toString', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('get trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('descriptor trap');
        },
        getPrototypeOf() {
          throw new Error('prototype trap');
        },
      },
    );
    expect(normalizeTurnError(hostile)).toEqual({ message: 'Unknown error' });
    const toString = jest.fn(() => 'x');
    expect(normalizeTurnError({ toString })).toEqual({ message: 'Unknown error' });
    expect(toString).not.toHaveBeenCalled();
  });

  it('falls back for null, numbers and empty strings, keeping a fallback code', () => {
    expect(normalizeTurnError(null)).toEqual({ message: 'Unknown error' });
    expect(normalizeTurnError(42, 'engine_error')).toEqual({ message: 'Unknown error', code: 'engine_error' });
    expect(normalizeTurnError('')).toEqual({ message: 'Unknown error' });
    expect(normalizeTurnError('plain')).toEqual({ message: 'plain' });
  });

  it('cuts message at 4,096 and code at 256 code units with flags', () => {
    const out = normalizeTurnError({ message: 'm'.repeat(5000), code: 'c'.repeat(300) });
    expect(out.message).toHaveLength(4096);
    expect(out.code).toHaveLength(256);
    expect(out.messageTruncated).toBe(true);
    expect(out.codeTruncated).toBe(true);
    expect(normalizeTurnError({ message: 'm'.repeat(4096) })).toEqual({ message: 'm'.repeat(4096) });
  });
});
