import fc from 'fast-check';
import { SseParser, type ServerSentEvent } from './sse-parser.js';

function parse(chunks: string[], lastEventId?: string) {
  const events: ServerSentEvent[] = [];
  const retries: number[] = [];
  const parser = new SseParser(
    (e) => events.push(e),
    (ms) => retries.push(ms),
    lastEventId,
  );
  for (const chunk of chunks) parser.push(chunk);
  return { events, retries, lastEventId: parser.lastEventId };
}

describe('SseParser', () => {
  it('reads id, event, multi-line data and retry; a frame without data dispatches nothing', () => {
    const { events, retries, lastEventId } = parse([
      'id: 7\nretry: 3000\n\n',
      'id: 8\nevent: turn_complete\ndata: {"a":1}\ndata: x\n\n: comment\n\n',
    ]);
    expect(retries).toEqual([3000]);
    expect(lastEventId).toBe('8');
    expect(events).toEqual([{ id: '8', event: 'turn_complete', data: '{"a":1}\nx' }]);
  });

  it('gives the same events however the stream is split, with any line endings', () => {
    const stream = 'id: 1\r\nevent: a\r\ndata: one\r\n\r\nid: 2\rdata: two\r\rdata: three\n\n';
    const whole = parse([stream]).events;
    expect(whole).toEqual([
      { id: '1', event: 'a', data: 'one' },
      { id: '2', event: 'message', data: 'two' },
      { id: '2', event: 'message', data: 'three' },
    ]);
    fc.assert(
      fc.property(fc.array(fc.nat(stream.length), { maxLength: 8 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks = [0, ...points].map((at, i, all) => stream.slice(at, all[i + 1] ?? stream.length));
        expect(parse(chunks).events).toEqual(whole);
      }),
    );
  });

  describe('the last event ID (WHATWG: set when the frame is dispatched)', () => {
    it('is not taken from an id line whose frame was never finished', () => {
      expect(parse(['id: 1\ndata: a\n\nid: 2\ndata: b\n']).lastEventId).toBe('1');
      expect(parse(['id: 1\ndata: a\n\nid: 2\n']).lastEventId).toBe('1');
      expect(parse(['id: 1\ndata: a\n\nid: 2']).lastEventId).toBe('1');
    });

    it('is set by a frame without data too, and cleared by an empty id', () => {
      expect(parse(['id: 5\n\n'])).toEqual({ events: [], retries: [], lastEventId: '5' });
      expect(parse(['id: 5\n\nid\n\n']).lastEventId).toBe('');
      expect(parse(['id: 5\n\nid:\ndata: x\n\n'])).toMatchObject({ events: [{ data: 'x' }], lastEventId: '' });
      expect(parse(['id: 5\n\nid:\ndata: x\n\n']).events[0]!.id).toBeUndefined();
    });

    it('ignores an id containing NULL', () => {
      expect(parse(['id: 5\n\nid: 6\u0000\ndata: x\n\n'])).toMatchObject({ events: [{ id: '5', data: 'x' }], lastEventId: '5' });
    });

    it('carries the one a reconnect resumed from until the server names another', () => {
      expect(parse(['data: x\n\n'], '9')).toMatchObject({ events: [{ id: '9' }], lastEventId: '9' });
      expect(parse(['data: x\n\nid: 10\ndata: y\n\n'], '9').lastEventId).toBe('10');
    });
  });
});
