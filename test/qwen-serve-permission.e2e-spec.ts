import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SseParser } from '../src/client/sse-parser.js';
import { eventually } from './support/eventually.js';
import { startOpenAiStub } from './support/openai-stub.js';
import { startQwenServe, type QwenServe } from './support/qwen-serve.js';

/**
 * The peer issue 35 is measured against: `qwen serve` 0.24.4 with the real
 * agent, offline against the model stub, holds a turn whose model calls the
 * shell until a client answers the permission request. Opt-in, as the agent
 * is a 123 MB install: `QWEN_BIN=/path/to/node_modules/.bin/qwen npx jest test/qwen-serve-permission.e2e-spec.ts`.
 */
const QWEN_BIN = process.env.QWEN_BIN;
(QWEN_BIN ? describe : describe.skip)('qwen serve asks before a tool runs', () => {
  let stub: Awaited<ReturnType<typeof startOpenAiStub>>;
  let serve: QwenServe;
  const streams: AbortController[] = [];

  beforeAll(async () => {
    stub = await startOpenAiStub();
    serve = await startQwenServe(QWEN_BIN!, stub.baseUrl);
  }, 60_000);
  afterAll(async () => {
    for (const stream of streams) stream.abort();
    await serve?.stop();
    await stub?.close();
  });

  /** A session whose prompt made the model call `echo ran > <file>`, held on its permission request. */
  async function heldOnPermission(file: string) {
    const call = async (method: string, path: string, body?: unknown, clientId?: string) => {
      const response = await fetch(`${serve.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(clientId && { 'x-qwen-client-id': clientId }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };
    const created = await call('POST', '/session', { cwd: serve.workspace });
    const { sessionId, clientId } = created.body as { sessionId: string; clientId: string };
    const session = (method: string, path: string, body?: unknown) => call(method, `/session/${sessionId}${path}`, body, clientId);

    const events: Array<{ type: string; data: Record<string, unknown> }> = [];
    const stream = new AbortController();
    streams.push(stream);
    const opened = await fetch(`${serve.url}/session/${sessionId}/events`, {
      headers: { 'x-qwen-client-id': clientId },
      signal: stream.signal,
    });
    const parser = new SseParser((event) => events.push({ type: event.event, data: JSON.parse(event.data).data }));
    void (async () => {
      for await (const chunk of opened.body!.pipeThrough(new TextDecoderStream())) parser.push(chunk);
    })().catch(() => undefined);

    const admitted = await session('POST', '/prompt', { prompt: [{ type: 'text', text: `please run: echo ran > ${file}` }] });
    expect(admitted.status).toBe(202);
    const status = await eventually(async () => {
      const { body } = await session('GET', '/status');
      return body.isWaitingForPermission ? body : undefined;
    }, 60_000);
    const request = status.pendingInteractions[0];
    return { session, events, status, request, marker: join(serve.workspace, file) };
  }

  const settled = (session: (method: string, path: string) => Promise<{ body: { state: string } }>) =>
    eventually(async () => {
      const { body } = await session('GET', '/turns/current');
      return body.state === 'running' ? undefined : body;
    }, 60_000);

  it('holds the turn, the command not run, until a client allows it; a second answer is a 404', async () => {
    const { session, events, status, request, marker } = await heldOnPermission('allowed.txt');
    expect(status).toMatchObject({ hasActivePrompt: true, isWaitingForPermission: true, pendingInteractionCount: 1 });
    expect(request).toMatchObject({
      kind: 'permission',
      action: { type: 'execute', input: { command: 'echo ran > allowed.txt' } },
      options: expect.arrayContaining([
        { optionId: 'proceed_once', label: 'Allow', kind: 'allow_once' },
        { optionId: 'cancel', label: 'Reject', kind: 'reject_once' },
      ]),
    });
    expect((await session('GET', '/turns/current')).body).toMatchObject({ state: 'running' });
    expect(existsSync(marker)).toBe(false);
    expect(events.map((e) => e.type)).toContain('permission_request');

    const answer = { outcome: { outcome: 'selected', optionId: 'proceed_once' } };
    expect(await session('POST', `/permission/${request.requestId}`, answer)).toEqual({ status: 200, body: {} });
    expect(await settled(session)).toMatchObject({ state: 'completed', stopReason: 'end_turn', resultText: 'The command ran.' });
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
    expect((await session('POST', `/permission/${request.requestId}`, answer)).status).toBe(404);
    const types = events.map((e) => e.type);
    expect(types.indexOf('permission_resolved')).toBeGreaterThan(types.indexOf('permission_request'));
    expect(types.indexOf('turn_complete')).toBeGreaterThan(types.indexOf('permission_resolved'));
  }, 120_000);

  it('never runs the command after a reject', async () => {
    const { session, events, request, marker } = await heldOnPermission('rejected.txt');
    const answer = { outcome: { outcome: 'selected', optionId: 'cancel' } };
    expect((await session('POST', `/permission/${request.requestId}`, answer)).status).toBe(200);
    expect(await settled(session)).toMatchObject({ state: 'completed', stopReason: 'end_turn' });
    expect(existsSync(marker)).toBe(false);
    expect(events.find((e) => e.type === 'permission_resolved')?.data).toMatchObject({ outcome: answer.outcome });
  }, 120_000);

  it('never runs the command after a cancel, which resolves the request as cancelled', async () => {
    const { session, events, marker } = await heldOnPermission('cancelled.txt');
    expect((await session('POST', '/cancel', {})).status).toBe(204);
    expect(await settled(session)).toMatchObject({ state: 'cancelled', stopReason: 'cancelled' });
    expect(existsSync(marker)).toBe(false);
    await eventually(() => events.find((e) => e.type === 'permission_resolved'));
    expect(events.find((e) => e.type === 'permission_resolved')?.data).toMatchObject({ outcome: { outcome: 'cancelled' } });
  }, 120_000);
});
