import type { SessionEvent, SessionStreamMarker } from '../wire/session-event.js';
import type { EventsOptions } from './client-options.js';
import { SseParser } from './sse-parser.js';
import { sleep } from './sleep.js';
import { errorOf, route, type TurnsTransport } from './turns-transport.js';

/** The pause before reconnecting until the server names its own (`retry:`). */
const DEFAULT_RECONNECT_MS = 3_000;

/** A frame's event; undefined for data that is not JSON, no event of this protocol: skipped, the stream goes on. */
function eventOf(data: string): SessionEvent | SessionStreamMarker | undefined {
  try {
    return JSON.parse(data) as SessionEvent | SessionStreamMarker;
  } catch {
    return undefined;
  }
}

/**
 * A session's events as they come (`TurnsClient.events`): reconnects after
 * the server's `retry` delay with `Last-Event-ID` and the epoch the stream
 * named, until `signal` aborts or the session answers an error.
 */
export async function* sessionEvents(
  transport: TurnsTransport,
  sessionId: string,
  options: EventsOptions = {},
): AsyncGenerator<SessionEvent | SessionStreamMarker> {
  let lastEventId = options.lastEventId;
  let epoch = options.epoch;
  let retryMs = DEFAULT_RECONNECT_MS;
  for (;;) {
    if (options.signal?.aborted) return;
    let response: Response;
    try {
      response = await transport.send('GET', route`/session/${sessionId}/events`, undefined, {
        signal: options.signal,
        headers: {
          Accept: 'text/event-stream',
          ...(lastEventId !== undefined && { 'Last-Event-ID': lastEventId }),
          ...(lastEventId !== undefined && epoch !== undefined && { 'X-Qwen-Event-Epoch': epoch }),
        },
        stream: true,
      });
    } catch {
      // The daemon stayed out of reach through the transport's retries: try again after the server's retry delay.
      if (options.signal?.aborted) return;
      await sleep(retryMs, options.signal).catch(() => undefined);
      continue;
    }
    if (!response.ok || !response.body) throw await errorOf(response);
    // A cursor is of the epoch the stream names; a new epoch (a restart) is told by state_resync_required.
    epoch = response.headers.get('x-qwen-event-epoch') ?? epoch;
    const queue: Array<SessionEvent | SessionStreamMarker> = [];
    const parser = new SseParser(
      (event) => {
        const parsed = eventOf(event.data);
        if (parsed) queue.push(parsed);
      },
      (ms) => (retryMs = ms),
      lastEventId,
    );
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(value);
        // The id of the last frame dispatched, not of an `id` line whose frame the stream may never finish.
        lastEventId = parser.lastEventId || undefined;
        while (queue.length > 0) yield queue.shift()!;
      }
    } catch {
      if (options.signal?.aborted) return;
    } finally {
      // Also when the caller stops iterating: the stream is closed, not left open to the daemon.
      await reader.cancel().catch(() => undefined);
    }
    await sleep(retryMs, options.signal).catch(() => undefined);
  }
}
