import fc from 'fast-check';
import { InMemoryBridgeOverlay } from '../../testing/in-memory-bridge-overlay.js';
import { InMemoryTranscriptScan } from '../../testing/in-memory-transcript-scan.js';
import { TurnStatusService } from '../turn-status.service.js';
import type { SettledTurnStatus, TurnStatus } from '../turn-status.js';
import { parseTurnListQuery, type TurnPage } from './turn-page.js';

const S = 's1';

/** The kit's two ports behind the real service, on a clock that moves one ms per reading. */
function runtime() {
  let time = 1_000;
  const bridge = new InMemoryBridgeOverlay({ now: () => (time += 1) }).addSession(S);
  const transcript = new InMemoryTranscriptScan();
  return { bridge, transcript, turns: new TurnStatusService(bridge, transcript) };
}

type Runtime = ReturnType<typeof runtime>;

const ids = (page: TurnPage) => page.turns.map((t) => (t as { promptId: string }).promptId);

/** Every page of the list, following the tokens. */
async function allPages(turns: TurnStatusService, limit: number, state?: string): Promise<TurnPage[]> {
  const pages: TurnPage[] = [];
  let token: string | undefined;
  do {
    const page = await turns.listTurns(S, parseTurnListQuery(S, { limit: String(limit), state, pageToken: token }));
    pages.push(page);
    token = page.nextPageToken;
  } while (token && pages.length < 100);
  return pages;
}

/** Settles the running prompt, recording it as the Session would. */
function completeRecorded({ bridge, transcript }: Runtime, resultText: string): SettledTurnStatus {
  const status = bridge.complete(S, { resultText });
  transcript.record(status);
  return status;
}

describe('TurnStatusService.listTurns', () => {
  it('lists each prompt once, as the exact route answers it, from every source', async () => {
    const rt = runtime();
    const { bridge, transcript, turns } = rt;
    // Persisted only (a former run of the daemon): in the transcript, not in memory.
    transcript.record({ sessionId: S, promptId: 'old1', state: 'completed', startedAt: 10, endedAt: 20, resultText: 'r1' });
    transcript.record({ sessionId: S, promptId: 'old2', state: 'error', startedAt: 30, endedAt: 40, error: { message: 'boom' } });
    // In the overlay and the transcript: the overlay's status enriched by the record.
    bridge.admit(S, 'one');
    bridge.start(S);
    const settled = bridge.complete(S);
    transcript.record({ ...settled, resultText: 'persisted answer' });
    // Overlay only: removed while queued.
    bridge.admit(S, 'two', { promptId: 'removed' });
    bridge.remove(S, 'removed');
    // Live.
    bridge.admit(S, 'three');
    bridge.start(S);
    bridge.admit(S, 'four');

    const pages = await allPages(turns, 2);
    const listed = pages.flatMap((page) => page.turns);
    expect(listed.map((t) => (t as { promptId: string }).promptId)).toEqual(['p3', 'p2', 'removed', 'p1', 'old2', 'old1']);
    const exact: TurnStatus[] = [];
    for (const status of listed) exact.push(await turns.getTurn(S, (status as { promptId: string }).promptId));
    expect(listed).toEqual(exact);
    expect(listed[3]).toMatchObject({ state: 'completed', resultText: 'persisted answer', queuedAt: settled.queuedAt });
    expect(pages.map((page) => page.turns.length)).toEqual([2, 2, 2]);
  });

  it('keeps the deadline rule: a bridge error superseded by the persisted outcome', async () => {
    const { bridge, transcript, turns } = runtime();
    const promptId = bridge.admit(S, 'slow');
    bridge.start(S);
    const expired = bridge.expire(S, promptId);
    transcript.record({ ...expired, state: 'completed', stopReason: 'end_turn', resultText: 'late' } as SettledTurnStatus);
    const [listed] = (await turns.listTurns(S, parseTurnListQuery(S, {}))).turns;
    expect(listed).toMatchObject({ state: 'completed', resultText: 'late', queuedAt: expired.queuedAt });
    expect(listed).toEqual(await turns.getTurn(S, promptId));
  });

  it('filters by state and bounds the page', async () => {
    const rt = runtime();
    for (let i = 0; i < 5; i += 1) {
      rt.bridge.admit(S, `q${i}`);
      rt.bridge.start(S);
      if (i % 2 === 0) completeRecorded(rt, `a${i}`);
      else rt.bridge.fail(S, { message: 'no', code: 'x' });
    }
    const errors = await allPages(rt.turns, 1, 'error');
    expect(errors.map(ids)).toEqual([['p4'], ['p2']]);
    expect((await rt.turns.listTurns(S, parseTurnListQuery(S, { limit: '3' }))).turns).toHaveLength(3);
  });

  it("shows the testing kit's running activity the same on the list, the exact poll and current", async () => {
    let time = 5_000;
    const bridge = new InMemoryBridgeOverlay({ now: () => time }).addSession(S);
    const turns = new TurnStatusService(bridge, new InMemoryTranscriptScan());
    const promptId = bridge.admit(S, 'busy');
    bridge.start(S);
    const woken = jest.fn();
    bridge.watchActivity(S, woken);
    bridge.agentUpdate(S);
    expect(woken).not.toHaveBeenCalled();
    time += 1_000;
    bridge.agentUpdate(S, { kind: 'tool_call', title: 'grep' });
    expect(woken).toHaveBeenCalledTimes(1);
    const exact = await turns.getTurn(S, promptId);
    expect(exact).toMatchObject({ state: 'running', activity: { events: 2, toolCalls: 1, lastEventAt: 6_000, lastTool: 'grep' } });
    expect((await turns.listTurns(S, parseTurnListQuery(S, {}))).turns).toEqual([exact]);
    expect(await turns.getCurrent(S)).toEqual(exact);
  });

  it('answers the structured error of a failing scan, never a page without the transcript', async () => {
    const { bridge, transcript, turns } = runtime();
    bridge.admit(S, 'x');
    transcript.failWith(S, 'transcript_snapshot_unavailable');
    await expect(turns.listTurns(S, parseTurnListQuery(S, {}))).rejects.toMatchObject({ code: 'transcript_snapshot_unavailable' });
  });

  it('pages neither repeat nor lose a turn, whatever settles between them (property)', async () => {
    type Step = { kind: 'admit' | 'start' | 'complete' | 'fail' | 'remove' | 'expire' | 'page'; pick: number };
    const step = fc.record({
      kind: fc.constantFrom<Step['kind']>('admit', 'start', 'complete', 'fail', 'remove', 'expire', 'page', 'page'),
      pick: fc.nat(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(step, { maxLength: 40 }),
        async (initial, limit, steps) => {
          const rt = runtime();
          const { bridge } = rt;
          const queued: string[] = [];
          let running: string | undefined;
          const admit = () => queued.push(bridge.admit(S, 'x'));
          const start = () => {
            if (running || queued.length === 0) return;
            running = bridge.start(S);
            queued.shift();
          };
          for (let i = 0; i < initial; i += 1) admit();
          if (initial % 2 === 0) start();
          // Every prompt known when the listing begins must be listed exactly once.
          const known = [...queued, ...(running ? [running] : [])];
          const seen: string[] = [];
          let page = await rt.turns.listTurns(S, parseTurnListQuery(S, { limit: String(limit) }));
          seen.push(...ids(page));
          for (const { kind, pick } of steps) {
            if (kind === 'page') {
              if (!page.nextPageToken) continue;
              page = await rt.turns.listTurns(S, parseTurnListQuery(S, { limit: String(limit), pageToken: page.nextPageToken }));
              seen.push(...ids(page));
            } else if (kind === 'admit') admit();
            else if (kind === 'start') start();
            else if ((kind === 'complete' || kind === 'fail') && running) {
              if (kind === 'complete') completeRecorded(rt, 'done');
              else bridge.fail(S, { message: 'no' });
              running = undefined;
            } else if ((kind === 'remove' || kind === 'expire') && queued.length > 0) {
              const [promptId] = queued.splice(pick % queued.length, 1);
              if (kind === 'remove') bridge.remove(S, promptId!);
              else bridge.expire(S, promptId!);
            }
          }
          while (page.nextPageToken) {
            page = await rt.turns.listTurns(S, parseTurnListQuery(S, { limit: String(limit), pageToken: page.nextPageToken }));
            seen.push(...ids(page));
          }
          expect(new Set(seen).size).toBe(seen.length);
          for (const promptId of known) expect(seen).toContain(promptId);
        },
      ),
      { numRuns: 200 },
    );
  });
});
