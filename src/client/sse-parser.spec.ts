import fc from 'fast-check';
import { SseParser, type ServerSentEvent } from './sse-parser.js';

function parse(chunks: string[]) {
  const events: ServerSentEvent[] = [];
  const retries: number[] = [];
  const ids: string[] = [];
  const parser = new SseParser(
    (e) => events.push(e),
    (ms) => retries.push(ms),
    (id) => ids.push(id),
  );
  for (const chunk of chunks) parser.push(chunk);
  return { events, retries, ids };
}

describe('SseParser', () => {
  it('reads id, event, multi-line data and retry; a frame without data dispatches nothing', () => {
    const { events, retries, ids } = parse([
      'id: 7\nretry: 3000\n\n',
      'id: 8\nevent: turn_complete\ndata: {"a":1}\ndata: x\n\n: comment\n\n',
    ]);
    expect(retries).toEqual([3000]);
    expect(ids).toEqual(['7', '8']);
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
});
