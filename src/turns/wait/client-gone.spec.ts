import { EventEmitter } from 'node:events';
import { clientGone } from './client-gone.js';

class FakeResponse extends EventEmitter {
  writableFinished = false;
}

describe('clientGone', () => {
  it('aborts when the connection closes before the answer was sent', () => {
    const response = new FakeResponse();
    const { signal } = clientGone(response);
    const aborted = jest.fn();
    signal.addEventListener('abort', aborted);
    expect(signal.aborted).toBe(false);
    response.emit('close');
    response.emit('close');
    expect(signal.aborted).toBe(true);
    expect(aborted).toHaveBeenCalledTimes(1);
  });

  it('is not an abort when the answer was sent first; release stops listening', () => {
    const response = new FakeResponse();
    const gone = clientGone(response);
    response.writableFinished = true;
    response.emit('close');
    expect(gone.signal.aborted).toBe(false);
    gone.release();
    expect(response.listenerCount('close')).toBe(0);
  });

  it('finds the raw response of a Fastify reply', () => {
    const raw = new FakeResponse();
    const { signal } = clientGone({ raw });
    raw.emit('close');
    expect(signal.aborted).toBe(true);
  });
});
