import { TOKEN } from './cluster.js';
import { errorName } from './recording-fetch.js';
import { sleep } from './processes.js';

/** Reads one SSE stream until `signal` aborts or it ends; writes each event as an `sse` record. */
async function readStream({ front, history, name, sessionId, signal }) {
  const res = await fetch(`${front}/session/${encodeURIComponent(sessionId)}/events`, {
    headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' },
    signal,
  });
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    return { reason: `status ${res.status}`, status: res.status };
  }
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true }).replaceAll('\r\n', '\n');
    let split;
    while ((split = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      const fields = { event: 'message', id: null, data: [] };
      for (const line of frame.split('\n')) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') fields.data.push(value);
        else if (field === 'event' || field === 'id') fields[field] = value;
      }
      if (fields.data.length === 0) continue;
      let data;
      try {
        data = JSON.parse(fields.data.join('\n'));
      } catch {
        data = { raw: fields.data.join('\n') };
      }
      history.write({ type: 'sse', t: Date.now(), client: name, sessionId, event: fields.event, id: fields.id, data });
    }
  }
  return { reason: 'ended by the server' };
}

/**
 * An SSE reader: picks a session, reads its stream for a seeded while, closes it,
 * and picks again; a stream refused with 404 gets the session loaded first.
 */
export async function sseReader(name, ctx) {
  const random = ctx.random.fork(name);
  for (let round = 0; round < 500 && Date.now() < ctx.stopAt; round += 1) {
    const session = ctx.pickSession(random);
    if (!session) {
      await sleep(500);
      continue;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.min(random.int(4_000, 15_000), Math.max(0, ctx.stopAt - Date.now())));
    let end;
    try {
      end = await readStream({ front: ctx.front, history: ctx.history, name, sessionId: session.sessionId, signal: controller.signal });
    } catch (error) {
      end = { reason: controller.signal.aborted ? 'closed by the reader' : errorName(error) };
    }
    clearTimeout(timer);
    ctx.history.write({ type: 'sse-end', t: Date.now(), client: name, sessionId: session.sessionId, reason: end.reason });
    if (end.status === 404) await ctx.load(name, session.sessionId);
    await sleep(random.int(200, 1_000));
  }
}
