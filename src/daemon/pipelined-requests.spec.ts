import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FrontRequest } from '../http/front-door.js';
import { inRequestOrder } from './pipelined-requests.js';

/** A response that finishes (or closes unfinished) when the test says so. */
class FakeResponse extends EventEmitter {
  writableFinished = false;
  finish(): void {
    this.writableFinished = true;
    this.emit('finish');
    this.emit('close');
  }
  abort(): void {
    this.emit('close');
  }
}

describe('inRequestOrder', () => {
  const socketA = {};
  const socketB = {};
  const request = (socket: object, res: FakeResponse) =>
    ({ req: { socket } as unknown as IncomingMessage, res: res as unknown as ServerResponse }) as FrontRequest;

  it('starts a request on a connection only once the answer before it has finished', () => {
    const order = inRequestOrder();
    const started: string[] = [];
    const responses = [new FakeResponse(), new FakeResponse(), new FakeResponse()];
    responses.forEach((res, i) => order(request(socketA, res), () => started.push(`a${i}`)));
    const other = new FakeResponse();
    order(request(socketB, other), () => started.push('b0'));
    expect(started).toEqual(['a0', 'b0']); // another connection does not wait
    responses[0]!.finish();
    expect(started).toEqual(['a0', 'b0', 'a1']);
    responses[1]!.finish();
    responses[2]!.finish();
    expect(started).toEqual(['a0', 'b0', 'a1', 'a2']);
    // The connection is idle again: the next request starts at once.
    order(request(socketA, new FakeResponse()), () => started.push('a3'));
    expect(started.at(-1)).toBe('a3');
  });

  it('drops the requests still waiting when the connection closes under an answer', () => {
    const order = inRequestOrder();
    const started: string[] = [];
    const first = new FakeResponse();
    order(request(socketA, first), () => started.push('first'));
    order(request(socketA, new FakeResponse()), () => started.push('second'));
    first.abort();
    expect(started).toEqual(['first']);
    order(request(socketA, new FakeResponse()), () => started.push('after'));
    expect(started).toEqual(['first', 'after']);
  });
});

describe('inRequestOrder on a connection whose answer has finished', () => {
  it('starts the next request at once, before that answer has closed, and adds no listener to it', () => {
    const order = inRequestOrder();
    const socket = {};
    const started: string[] = [];
    const first = new FakeResponse();
    const as = (res: FakeResponse) => ({ req: { socket }, res }) as unknown as FrontRequest;
    order(as(first), () => started.push('first'));
    first.writableFinished = true; // finished, 'close' not emitted yet
    order(as(new FakeResponse()), () => started.push('second'));
    expect(started).toEqual(['first', 'second']);
    expect(first.listenerCount('close')).toBe(0);
  });
});
