import { S, completed, persisted, serviceRig, type ControlledScan, type FakeBridge } from '../../test/support/turn-status-fakes.js';
import type { TurnStatusService } from './turn-status.service.js';
import type { LooseStatus as TurnStatus } from '../../test/support/loose-status.js';

describe('TurnStatusService', () => {
  let bridge: FakeBridge;
  let scan: ControlledScan;
  let service: TurnStatusService;

  beforeEach(() => ({ bridge, scan, service } = serviceRig()));

  describe('from memory, without a scan', () => {
    it('answers live state first', async () => {
      bridge.live = [{ sessionId: S, state: 'running', promptId: 'p', queuedAt: 1, startedAt: 2 }];
      bridge.publish(completed('p')); // cannot happen in the bridge; live must still win
      await expect(service.getTurn(S, 'p')).resolves.toMatchObject({ state: 'running' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ state: 'running' });
      expect(scan.calls).toHaveLength(0);
    });

    it('serves written-back answers, also for current in steady state', async () => {
      bridge.overlay.writeBack(S, completed('p', { resultText: 'r' }), true);
      await expect(service.getTurn(S, 'p')).resolves.toMatchObject({ resultText: 'r' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ promptId: 'p' });
      expect(scan.calls).toHaveLength(0);
    });
  });

  describe('peek: memory alone', () => {
    it('answers live and final statuses, and nothing where only the transcript can tell', () => {
      bridge.live = [{ sessionId: S, state: 'running', promptId: 'p', queuedAt: 1, startedAt: 2 }];
      expect(service.peek(S, 'p')).toMatchObject({ state: 'running' });
      expect(service.peek(S)).toMatchObject({ state: 'running', promptId: 'p' });
      bridge.publish(completed('q')); // the bridge's own terminal still needs its record
      expect(service.peek(S, 'q')).toBeUndefined();
      expect(service.peek(S, 'never-seen')).toBeUndefined();
      bridge.overlay.writeBack(S, completed('q', { resultText: 'r' }), false);
      expect(service.peek(S, 'q')).toMatchObject({ resultText: 'r' });
      expect(scan.calls).toHaveLength(0);
    });
  });

  describe('reads in flight', () => {
    it('share one scan between concurrent polls of a prompt, and forget it once answered', async () => {
      bridge.publish(completed('p'));
      const first = service.getTurn(S, 'p');
      const second = service.getTurn(S, 'p');
      const other = service.getTurn(S, 'other');
      expect(scan.calls.map((c) => c.promptId)).toEqual(['p', 'other']);
      scan.calls[0]!.resolve(persisted('p'));
      scan.calls[1]!.resolve(undefined);
      await expect(first).resolves.toMatchObject({ resultText: 'answer p' });
      await expect(second).resolves.toBe(await first);
      await expect(other).rejects.toMatchObject({ code: 'prompt_not_found' });
      const again = service.getTurn(S, 'other');
      expect(scan.calls).toHaveLength(3);
      scan.last.resolve(undefined);
      await expect(again).rejects.toMatchObject({ code: 'prompt_not_found' });
    });
  });

  describe('merge and write-back', () => {
    it('enriches the overlay with the persisted result, writes it back, and scans once', async () => {
      bridge.publish(completed('p'));
      const poll = service.getTurn(S, 'p');
      scan.last.resolve(persisted('p'));
      const answer = await poll;
      expect(answer).toEqual({ ...completed('p'), resultText: 'answer p' });
      expect(bridge.overlay.get(S, 'p')?.combined).toBe(true);
      await expect(service.getTurn(S, 'p')).resolves.toEqual(answer);
      expect(scan.calls).toHaveLength(1);
    });

    it('writes back a persisted-only answer (no queuedAt)', async () => {
      const poll = service.getTurn(S, 'old');
      scan.last.resolve(persisted('old'));
      const answer = await poll;
      expect(answer).not.toHaveProperty('queuedAt');
      expect(bridge.writeBacks).toEqual([answer]);
    });

    it('does not let an exact lookup of an old prompt become the current answer (after a restart)', async () => {
      const exact = service.getTurn(S, 'old');
      scan.last.resolve(persisted('old', { endedAt: 3 }));
      await exact;
      const current = service.getCurrent(S);
      expect(scan.calls).toHaveLength(2);
      scan.last.resolve(persisted('newer', { endedAt: 9 }));
      await expect(current).resolves.toMatchObject({ promptId: 'newer' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ promptId: 'newer' });
      expect(scan.calls).toHaveLength(2);
    });

    it('answers 404 prompt_not_found when no source has the prompt', async () => {
      const poll = service.getTurn(S, 'ghost');
      scan.last.resolve(undefined);
      await expect(poll).rejects.toMatchObject({ status: 404, code: 'prompt_not_found', details: { sessionId: S, promptId: 'ghost' } });
    });

    it('returns an overlay entry without a record as is, and does not write it back', async () => {
      const removed: TurnStatus = { sessionId: S, state: 'cancelled', promptId: 'q', queuedAt: 1, endedAt: 2, stopReason: 'cancelled' };
      bridge.publish(removed);
      const poll = service.getTurn(S, 'q');
      scan.last.resolve(undefined);
      await expect(poll).resolves.toEqual(removed);
      expect(bridge.writeBacks).toHaveLength(0);
    });
  });

  describe('current', () => {
    it('answers idle for a session with no turn', async () => {
      const poll = service.getCurrent(S);
      scan.last.resolve(undefined);
      await expect(poll).resolves.toEqual({ sessionId: S, state: 'idle' });
    });

    it('settles on an overlay entry that no record will ever join, e.g. a prompt removed while queued', async () => {
      bridge.publish({ sessionId: S, state: 'cancelled', promptId: 'q', queuedAt: 1, endedAt: 2, stopReason: 'cancelled' });
      const poll = service.getCurrent(S);
      scan.last.resolve(undefined);
      await expect(poll).resolves.toMatchObject({ promptId: 'q', state: 'cancelled' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ promptId: 'q' });
      expect(scan.calls).toHaveLength(1);
    });

    it('picks the newer endedAt between the overlay newest and the persisted newest', async () => {
      bridge.publish(completed('a', { endedAt: 5 }));
      const poll = service.getCurrent(S);
      scan.last.resolve(persisted('b', { endedAt: 8 }));
      await expect(poll).resolves.toMatchObject({ promptId: 'b' });
    });

    it('merges when both name the same prompt', async () => {
      bridge.publish(completed('a'));
      const poll = service.getCurrent(S);
      scan.last.resolve(persisted('a'));
      await expect(poll).resolves.toEqual({ ...completed('a'), resultText: 'answer a' });
      await service.getCurrent(S);
      expect(scan.calls).toHaveLength(1);
    });
  });
});
