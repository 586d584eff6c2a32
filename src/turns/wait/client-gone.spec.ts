import { EventEmitter } from 'node:events';
import { ClientGone } from './client-gone.js';

class FakeResponse extends EventEmitter {
  writableFinished = false;
}

describe('ClientGone', () => {
  it('aborts when the connection closes before the answer was sent, and tells its listener once', () => {
    const response = new FakeResponse();
    const gone = new ClientGone(response);
    const listener = jest.fn();
    gone.addEventListener('abort', listener);
    expect(gone.aborted).toBe(false);
    response.emit('close');
    response.emit('close');
    expect(gone.aborted).toBe(true);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('is not an abort when the answer was sent first; release stops listening', () => {
    const response = new FakeResponse();
    const gone = new ClientGone(response);
    response.writableFinished = true;
    response.emit('close');
    expect(gone.aborted).toBe(false);
    gone.release();
    expect(response.listenerCount('close')).toBe(0);
  });

  it('remembers an abort that came before anyone listened, forgets a removed listener, and finds the raw response of a Fastify reply', () => {
    const raw = new FakeResponse();
    const gone = new ClientGone({ raw });
    const listener = jest.fn();
    gone.addEventListener('abort', listener);
    gone.removeEventListener('abort', listener);
    raw.emit('close');
    expect(gone.aborted).toBe(true);
    expect(listener).not.toHaveBeenCalled();
  });
});
