import type { HttpAdapterHost } from '@nestjs/core';
import type { TurnStatus } from './turn-status.js';
import type { TurnStatusService } from './turn-status.service.js';
import { TurnsController } from './turns.controller.js';
import type { TurnWaitService } from './wait/turn-wait.service.js';

const SESSION = '0b7e8a52-2f0c-4a57-9d6e-6f1f4d1c0a11';
const PROMPT = 'p-1';
const settled: TurnStatus = {
  sessionId: SESSION,
  promptId: PROMPT,
  state: 'completed',
  queuedAt: 1,
  startedAt: 2,
  endedAt: 3,
  stopReason: 'end_turn',
} as TurnStatus;

/** The controller over a status service that knows `known` from memory (and counts its transcript reads), and an adapter that records replies. */
function controller(known: TurnStatus | undefined) {
  const replies: Array<{ status: number | undefined; body: unknown }> = [];
  const reads: string[] = [];
  const turns = {
    peek: () => known,
    getTurn: async () => (reads.push('getTurn'), settled),
    getCurrent: async () => (reads.push('getCurrent'), settled),
  } as unknown as TurnStatusService;
  const waits = { maxWaitMs: 30_000, wait: async (_request: unknown, first: TurnStatus) => first } as unknown as TurnWaitService;
  const httpAdapter = {
    setHeader: () => undefined,
    reply: (_res: unknown, body: unknown, status?: number) => replies.push({ status, body }),
  };
  return { controller: new TurnsController(turns, waits, { httpAdapter } as unknown as HttpAdapterHost), replies, reads };
}

describe('TurnsController', () => {
  it('answers a plain poll memory knows at once, with no promise', () => {
    const { controller: turns, replies } = controller(settled);
    const returned = turns.exact(SESSION, PROMPT, { waitMs: undefined }, {});
    expect(returned).toBeUndefined();
    expect(replies).toHaveLength(1);
    expect(replies[0]!.status).toBe(200);
    expect(JSON.parse(String(replies[0]!.body))).toMatchObject({ promptId: PROMPT, state: 'completed' });
  });

  it('takes the long way for a poll that asks for a wait, or that memory does not answer', async () => {
    const waiting = controller(settled);
    const held = waiting.controller.exact(SESSION, PROMPT, { waitMs: '0' }, { on: () => undefined, off: () => undefined });
    expect(held).toBeInstanceOf(Promise);
    await held;
    expect(waiting.replies).toHaveLength(1);

    const unknown = controller(undefined);
    const read = unknown.controller.current(SESSION, { waitMs: undefined }, {});
    expect(read).toBeInstanceOf(Promise);
    await read;
    expect(unknown.reads).toEqual(['getCurrent']);
    expect(unknown.replies).toHaveLength(1);
  });

  it('refuses a bad activity filter whether or not memory knows the prompt', async () => {
    for (const known of [settled, undefined]) {
      const { controller: turns, replies } = controller(known);
      await expect(Promise.resolve(turns.exact(SESSION, PROMPT, { waitMs: undefined, activity: 'bogus' }, {}))).rejects.toMatchObject({
        response: { code: 'invalid_activity' },
      });
      expect(replies).toHaveLength(0);
    }
  });
});
