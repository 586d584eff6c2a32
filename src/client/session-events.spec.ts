import { header } from '../../test/support/stub-fetch.js';
import { TurnsClient } from './turns-client.js';

describe('sessionEvents (TurnsClient.events)', () => {
  it('reconnects to the event stream with the last id and the epoch that stream named', async () => {
    const calls: RequestInit[] = [];
    const frame = 'retry: 1\nid: 3\nevent: turn_complete\ndata: {"id":3,"v":1,"type":"turn_complete","data":{}}\n\n';
    const bodies = [frame];
    const fetch = async (_url: string | URL | Request, init: RequestInit = {}) => {
      calls.push(init);
      const body = bodies.shift();
      if (body === undefined) return new Response(JSON.stringify({ code: 'session_not_found' }), { status: 404 });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-qwen-event-epoch': 'e1' } });
    };
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch: fetch as typeof globalThis.fetch });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of client.events('s')) seen.push(event.type);
    })();
    await expect(reading).rejects.toMatchObject({ status: 404 });
    expect(seen).toEqual(['turn_complete']);
    expect(header(calls[0]!, 'x-qwen-event-epoch')).toBeNull();
    expect(header(calls[1]!, 'last-event-id')).toBe('3');
    expect(header(calls[1]!, 'x-qwen-event-epoch')).toBe('e1');
  });

  it('closes the stream when the caller stops iterating, rather than leaving it open to the daemon', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('id: 1\ndata: {"type":"turn_complete"}\n\n')),
      cancel: () => {
        cancelled = true;
      },
    });
    const fetch = (async () => new Response(stream, { status: 200 })) as typeof globalThis.fetch;
    for await (const event of new TurnsClient({ baseUrl: 'http://daemon', fetch }).events('s')) {
      expect(event.type).toBe('turn_complete');
      break;
    }
    expect(cancelled).toBe(true);
  });

  /** Reads `events('s')` over streams with these bodies, then a 404 that ends it: the events' types and each request. */
  async function readStreams(bodies: string[]): Promise<{ seen: string[]; calls: RequestInit[] }> {
    const calls: RequestInit[] = [];
    const fetch = (async (_url: string, init: RequestInit = {}) => {
      calls.push(init);
      const body = bodies.shift();
      return body === undefined ? new Response(null, { status: 404 }) : new Response(body, { status: 200 });
    }) as typeof globalThis.fetch;
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of new TurnsClient({ baseUrl: 'http://daemon', fetch }).events('s')) seen.push(event.type);
    })();
    await expect(reading).rejects.toMatchObject({ status: 404 });
    return { seen, calls };
  }

  it('skips a frame that is not JSON and keeps the events around it', async () => {
    const { seen, calls } = await readStreams([
      'retry: 1\nid: 1\ndata: {"type":"a"}\n\nid: 2\ndata: <oops>\n\nid: 3\ndata: {"type":"c"}\n\n',
    ]);
    expect(seen).toEqual(['a', 'c']);
    expect(header(calls[1]!, 'last-event-id')).toBe('3');
  });

  it('reconnects from the last dispatched event when the stream is cut after an id line, not past an event never delivered (issue 36)', async () => {
    const { seen, calls } = await readStreams([
      'retry: 1\nid: 1\ndata: {"type":"a"}\n\nid: 2\n',
      'id: 2\ndata: {"type":"b"}\n\nid: 3\nevent: x\n\n',
      'id: 4\ndata: {"type":"c"}\n\nid\n\n',
    ]);
    expect(seen).toEqual(['a', 'b', 'c']);
    // Cut after `id: 2`: resume from 1. A frame without data still moves it (3); an empty id clears it (no header).
    expect(calls.map((init) => header(init, 'last-event-id'))).toEqual([null, '1', '3', null]);
  });
});
