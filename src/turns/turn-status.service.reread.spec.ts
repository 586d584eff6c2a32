import { ApiException } from '../errors/api-exception.js';
import { S, completed, persisted, serviceRig, type ControlledScan, type FakeBridge } from '../../test/support/turn-status-fakes.js';
import type { TurnStatusService } from './turn-status.service.js';
import type { LooseStatus as TurnStatus } from '../../test/support/loose-status.js';

/** The service awaits a scan; these edit the bridge during that await and check what the poll answers. */
describe('TurnStatusService across the awaited scan', () => {
  let bridge: FakeBridge;
  let scan: ControlledScan;
  let service: TurnStatusService;

  beforeEach(() => ({ bridge, scan, service } = serviceRig()));

  describe('deadline path', () => {
    const deadlineError = (promptId: string): TurnStatus => ({
      sessionId: S,
      state: 'error',
      promptId,
      promptText: 'long job',
      queuedAt: 1,
      startedAt: 2,
      endedAt: 4,
      error: { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' },
    });

    it('reads error before the agent settles, and the persisted completion after', async () => {
      bridge.publish(deadlineError('p'));
      const before = service.getTurn(S, 'p');
      scan.last.resolve(undefined);
      await expect(before).resolves.toMatchObject({ state: 'error' });

      const after = service.getTurn(S, 'p');
      scan.last.resolve(persisted('p', { endedAt: 9, promptText: 'long job' }));
      const answer = await after;
      expect(answer).toEqual({ ...persisted('p', { endedAt: 9 }), promptText: 'long job', queuedAt: 1 });
      expect(answer).not.toHaveProperty('error');
      // Served from memory from now on.
      await expect(service.getTurn(S, 'p')).resolves.toEqual(answer);
      expect(scan.calls).toHaveLength(2);
    });

    it('lets a persisted cancellation supersede the error too', async () => {
      bridge.publish(deadlineError('p'));
      const poll = service.getTurn(S, 'p');
      scan.last.resolve(persisted('p', { state: 'cancelled', stopReason: 'cancelled', resultText: undefined }));
      await expect(poll).resolves.toMatchObject({ state: 'cancelled', stopReason: 'cancelled', queuedAt: 1 });
    });

    it('keeps the current poll scanning while the newest entry is a bridge error', async () => {
      bridge.publish(completed('a'));
      bridge.publish(deadlineError('b'));
      const poll = service.getCurrent(S);
      scan.last.resolve(persisted('a'));
      await expect(poll).resolves.toMatchObject({ promptId: 'b', state: 'error' });
      expect(bridge.writeBacks).toHaveLength(0);
    });
  });

  describe('re-read after the awaited scan', () => {
    it('answers a prompt that started while the scan was in flight (current)', async () => {
      bridge.publish(completed('a'));
      const poll = service.getCurrent(S);
      bridge.live = [{ sessionId: S, state: 'running', promptId: 'b', queuedAt: 5, startedAt: 6 }];
      scan.last.resolve(persisted('a'));
      await expect(poll).resolves.toMatchObject({ promptId: 'b', state: 'running' });
    });

    it('prefers a terminal published during the scan and never lets the write-back hide it', async () => {
      bridge.publish(completed('a'));
      const poll = service.getCurrent(S);
      bridge.publish(completed('b', { endedAt: 10 }));
      scan.last.resolve(persisted('a'));
      await expect(poll).resolves.toMatchObject({ promptId: 'b' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ promptId: 'b' });
      expect(bridge.overlay.get(S, 'a')?.combined).toBe(false);
    });

    it('serves an answer a concurrent poll wrote back during the scan', async () => {
      bridge.publish(completed('p'));
      const first = service.getTurn(S, 'p');
      const second = service.getCurrent(S); // not shared with the exact poll: a read of its own
      scan.calls[1]!.resolve(persisted('p', { resultText: 'fresh' }));
      await second;
      scan.calls[0]!.resolve(persisted('p', { resultText: 'stale' }));
      await expect(first).resolves.toMatchObject({ resultText: 'fresh' });
      expect(bridge.writeBacks).toHaveLength(1);
    });

    it('answers from the overlay when the scan fails', async () => {
      bridge.publish(completed('p'));
      const poll = service.getTurn(S, 'p');
      scan.last.reject(new ApiException(409, 'transcript_snapshot_unavailable', 'x'));
      await expect(poll).resolves.toEqual(completed('p'));
      expect(bridge.writeBacks).toHaveLength(0);
    });

    it('re-reads live state after a failed scan, too', async () => {
      const poll = service.getCurrent(S);
      bridge.live = [{ sessionId: S, state: 'queued', promptId: 'n', queuedAt: 7 }];
      scan.last.reject(new Error('disk gone'));
      await expect(poll).resolves.toMatchObject({ promptId: 'n', state: 'queued' });
    });

    it('surfaces a structured scan error when nothing else knows the prompt, never as not-found', async () => {
      const error = new ApiException(413, 'transcript_too_large', 'x', { snapshotSize: 9, maxBytes: 1 });
      const exact = service.getTurn(S, 'p');
      scan.last.reject(error);
      await expect(exact).rejects.toBe(error);
      const current = service.getCurrent(S);
      scan.last.reject(error);
      await expect(current).rejects.toBe(error);
    });

    it('discards a scan result that predates a rewind finishing during the await', async () => {
      const exact = service.getTurn(S, 'p');
      const current = service.getCurrent(S);
      bridge.overlay.rewound(S);
      scan.calls[0]!.resolve(persisted('p'));
      scan.calls[1]!.resolve(persisted('p'));
      await expect(exact).rejects.toMatchObject({ code: 'prompt_not_found' });
      await expect(current).resolves.toEqual({ sessionId: S, state: 'idle' });
      expect(bridge.writeBacks).toHaveLength(0);
    });
  });

  describe('a session that leaves this node during the scan (closed, or its lease lost)', () => {
    const leave = () => {
      bridge.gone = true;
      bridge.overlay.forget(S);
    };

    it('answers 404 session_not_found, not prompt_not_found, when its sources found nothing', async () => {
      const exact = service.getTurn(S, 'p');
      leave();
      scan.last.resolve(undefined); // its transcript and ledger were let go: read as nothing
      await expect(exact).rejects.toMatchObject({ code: 'session_not_found', details: { sessionId: S } });
    });

    it('answers session_not_found for current (never idle), the list, and a failed scan', async () => {
      const current = service.getCurrent(S);
      leave();
      scan.last.resolve(undefined);
      await expect(current).rejects.toMatchObject({ code: 'session_not_found' });
      bridge.gone = false;
      const list = service.listTurns(S, { limit: 20 });
      leave();
      scan.last.resolve(persisted('p'));
      await expect(list).rejects.toMatchObject({ code: 'session_not_found' });
      bridge.gone = false;
      const failed = service.getTurn(S, 'q');
      leave();
      scan.last.reject(new ApiException(409, 'transcript_snapshot_unavailable', 'x'));
      await expect(failed).rejects.toMatchObject({ code: 'session_not_found' });
    });

    it('still answers what its scan found (a settled record is final), and writes nothing back', async () => {
      const exact = service.getTurn(S, 'p');
      leave();
      scan.last.resolve(persisted('p'));
      await expect(exact).resolves.toMatchObject({ promptId: 'p', resultText: 'answer p' });
      expect(bridge.writeBacks).toHaveLength(0);
    });

    it('answers session_not_found when it left and came back during the scan, and a poll after does not share that read', async () => {
      const before = service.getTurn(S, 'p');
      bridge.overlay.forget(S); // closed, and loaded here again: live, with nothing of its earlier attachment
      const after = service.getTurn(S, 'p');
      expect(scan.calls).toHaveLength(2);
      scan.calls[0]!.resolve(undefined);
      scan.calls[1]!.resolve(persisted('p'));
      await expect(before).rejects.toMatchObject({ code: 'session_not_found' });
      await expect(after).resolves.toMatchObject({ promptId: 'p', resultText: 'answer p' });
    });

    it('answers prompt_not_found and idle as before while the session stays (another session closing changes nothing)', async () => {
      const exact = service.getTurn(S, 'p');
      bridge.overlay.forget('other');
      scan.last.resolve(undefined);
      await expect(exact).rejects.toMatchObject({ code: 'prompt_not_found' });
      const current = service.getCurrent(S);
      scan.last.resolve(undefined);
      await expect(current).resolves.toEqual({ sessionId: S, state: 'idle' });
    });
  });
});
