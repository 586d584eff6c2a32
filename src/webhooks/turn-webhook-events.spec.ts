import { Logger } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { SessionEventBus } from '../events/session-event-bus.js';
import { OwnerWriteFence } from '../sessions/session-write-fence.js';
import { deferred, settle } from '../../test/support/deferred.js';
import { settledOf, startLedgerRuntime, text, type LedgerRuntime } from '../../test/support/ledger-runtime.js';
import { WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { QueuedWebhookEvents } from './queued-webhook-events.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/**
 * A webhook is owed for every acknowledged prompt and for nothing else
 * (docs/webhooks.md): an admission refused once its record is synced, or one that a
 * lost session ends while its record is being written, is answered 503 and
 * must never be announced — while the acknowledged prompts of the same
 * session keep theirs.
 */
const enqueueEach = WebhookDispatcher.prototype.enqueueEach;
const mark = QueuedWebhookEvents.prototype.mark;

describe('TurnWebhookEvents: only acknowledged prompts', () => {
  let receiver: WebhookReceiver;
  let rt: LedgerRuntime;
  let sessionId: string;
  let queued: string[];
  let sse: string[];
  let handled: number;
  let marked: number;
  let markLanded = deferred<void>();

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    receiver = await WebhookReceiver.start();
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    // What enters the outbox, as each event is queued to its receivers.
    queued = [];
    jest.spyOn(WebhookDispatcher.prototype, 'enqueueEach').mockImplementation(function (this: WebhookDispatcher, event, targets) {
      queued.push(`${event.type} ${event.promptId}`);
      return enqueueEach.call(this, event, targets);
    });
    marked = 0;
    jest.spyOn(QueuedWebhookEvents.prototype, 'mark').mockImplementation(async function (this: QueuedWebhookEvents, id, ...rest) {
      try {
        await mark.call(this, id, ...rest);
      } finally {
        // A previous case's runtime may still be finishing its own marks.
        if (id === sessionId) {
          marked += 1;
          markLanded.resolve();
          markLanded = deferred<void>();
        }
      }
    });
    rt = await startLedgerRuntime(undefined, undefined, { webhooks: { url: receiver.url, secret, allow: ['127.0.0.1'] } });
    ({ sessionId } = await rt.sessions.create({ sessionScope: 'thread' }));
    // Every transition the webhook events act on ends in a mark, once its deliveries are queued.
    handled = 0;
    rt.bridge.onTransition((t) => t.sessionId === sessionId && t.kind !== 'admitted' && t.kind !== 'withdrawn' && (handled += 1));
    sse = [];
    rt.module
      .get(SessionEventBus)
      .subscribe(sessionId)
      .subscribe((event) => sse.push(`${event.type} ${event.promptId}`));
  });
  afterEach(async () => {
    try {
      // Events still being queued (a late settle after a close) finish their outbox writes first.
      await webhooksQueued(false);
      await rt.module.close();
      await receiver.close();
    } finally {
      jest.restoreAllMocks();
    }
  });

  /**
   * Resolves once every transition of the session so far has been turned into deliveries: the webhook events mark
   * each once its deliveries are in the outbox. Bounded by the case's timeout (in `afterEach`, by a few seconds).
   */
  async function webhooksQueued(check = true): Promise<void> {
    const giveUp = check ? [] : [new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 2_000).unref())];
    while (marked < handled && !(await Promise.race([markLanded.promise.then(() => false), ...giveUp]))) {
      // the next mark landed
    }
    if (check) expect(marked).toBe(handled);
  }

  async function runningPrompt(t: string) {
    const { promptId } = rt.bridge.admit(sessionId, text(t));
    await rt.ledger.admitted(sessionId, promptId);
    return { promptId, turn: await rt.engine.nextTurn() };
  }

  const about = (promptId: string) => (line: string) => line.endsWith(promptId);

  it('an admission refused after its record was synced (fenced) publishes no webhook; the acknowledged prompt keeps its own', async () => {
    const acknowledged = await runningPrompt('acknowledged');
    const path = rt.ledger.pathOf(sessionId)!;
    let refused = '';
    // The fence check before the append passes; the one after the sync finds another node's claim.
    jest
      .spyOn(rt.module.get(OwnerWriteFence), 'mayWrite')
      .mockImplementation(() => refused === '' || !(existsSync(path) && readFileSync(path, 'utf8').includes(refused)));
    refused = rt.bridge.admit(sessionId, text('refused')).promptId;
    await expect(rt.ledger.admitted(sessionId, refused)).rejects.toMatchObject({ code: 'session_fenced', status: 503 });
    await rt.bridge.admissionsDecided(sessionId);
    const completed = settledOf(rt.bridge, () => acknowledged.promptId);
    acknowledged.turn.say('done');
    acknowledged.turn.finish();
    await completed;
    await webhooksQueued();

    expect(queued).toEqual([`turn.completed ${acknowledged.promptId}`]);
    expect(sse.filter(about(refused))).toEqual(['pending_prompt_added ' + refused, 'pending_prompt_completed ' + refused]);
    expect(JSON.parse((await receiver.next()).body)).toMatchObject({ type: 'turn.completed', data: { promptId: acknowledged.promptId } });
    // Nothing of it in the ledger beyond the refused line: no terminal that a reader could answer with.
    await rt.ledger.flush(sessionId);
    expect(readFileSync(path, 'utf8')).not.toMatch(new RegExp(`"promptId":"${refused}","terminal"`));
    await expect(rt.polls.getTurn(sessionId, refused)).rejects.toMatchObject({ code: 'prompt_not_found' });
  });

  it('a session lost while an admission waits on its sync publishes nothing for it; the running prompt gets its session_closed', async () => {
    const acknowledged = await runningPrompt('acknowledged');
    // Every write from here waits on the ownership check, as a node paused past its lease does.
    const check = deferred<boolean>();
    jest.spyOn(rt.module.get(OwnerWriteFence), 'mayWrite').mockReturnValue(check.promise);
    const refused = rt.bridge.admit(sessionId, text('refused')).promptId;
    const answer = rt.ledger.admitted(sessionId, refused);
    answer.catch(() => undefined);
    // Another node claimed the session: the loss closes it here while the admission's record waits.
    const evicted = rt.sessions.evict(sessionId);
    await settle();
    check.resolve(false);
    await expect(answer).rejects.toMatchObject({ code: 'session_fenced', status: 503 });
    await evicted;
    await webhooksQueued();

    expect(queued).toEqual([`turn.error ${acknowledged.promptId}`]);
    expect(sse).toContain(`turn_error ${acknowledged.promptId}`);
    expect(sse.filter(about(refused))).toEqual(['pending_prompt_added ' + refused, 'pending_prompt_completed ' + refused]);
    const delivered = JSON.parse((await receiver.next()).body);
    expect(delivered).toMatchObject({ type: 'turn.error', data: { promptId: acknowledged.promptId, error: { code: 'session_closed' } } });
    expect(delivered.data.promptId).not.toBe(refused);
  });

  it('a session closed while an admission waits on its sync: acknowledged once synced, it gets session_closed, its webhook and its record', async () => {
    const running = await runningPrompt('running');
    const check = deferred<boolean>();
    jest.spyOn(rt.module.get(OwnerWriteFence), 'mayWrite').mockReturnValue(check.promise);
    const waiting = rt.bridge.admit(sessionId, text('waiting')).promptId;
    const answer = rt.ledger.admitted(sessionId, waiting);
    const path = rt.ledger.pathOf(sessionId)!;
    const closed = rt.sessions.close(sessionId);
    await settle();
    check.resolve(true);
    await answer; // its 202
    await closed;
    await webhooksQueued();

    expect(queued.filter(about(waiting))).toEqual([`turn.error ${waiting}`]);
    // The running one's persisted outcome (its cancelled turn) supersedes the close, as the exact poll answers.
    expect(queued.filter(about(running.promptId))).toEqual([expect.stringMatching(/^turn\.(error|cancelled) /)]);
    expect(sse).toContain(`turn_error ${waiting}`);
    expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`"promptId":"${waiting}","terminal":"error","code":"session_closed"`));
  });
});
