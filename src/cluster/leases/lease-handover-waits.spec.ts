import { Logger } from '@nestjs/common';
import { deferred, settle } from '../../../test/support/deferred.js';
import { handoverWorld, S1 } from '../../../test/support/handover-spec.js';
import { HAS_REDIS } from '../../../test/support/redis-server.js';
import { peerOrigin } from './lease-handover.js';

/** The lease handover (docs/cluster.md#inv-lease-5): a previous owner that cannot be asked, or not answered by, is waited out. */
(HAS_REDIS ? describe : describe.skip)('lease handover: waiting a previous owner out (real redis-server)', () => {
  const w = handoverWorld();

  it('a previous owner nothing listens for (connection refused) and no heartbeat names is not waited for', async () => {
    const gone = await w.ownershipOf('node-c', 'http://127.0.0.1:1');
    await w.a.release(S1);
    await gone.claim(S1);
    // Redis w.lost its data: w.asked for that, but nothing listens at node-c's address and no heartbeat says it lives.
    await w.admin.flushall();
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.claim(S1);
    expect(b.holds(S1)).toBe(true);
  });

  it('a refused connection to a previous owner whose heartbeat is there is waited out (its address, not it, is gone)', async () => {
    const moved = await w.ownershipOf('node-c', 'http://127.0.0.1:1');
    await w.a.release(S1);
    await moved.claim(S1);
    await moved.tick();
    await w.admin.del(`turns:lease:${S1}`);
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    await w.expectWaitedOut(b);
  });

  it('an answer from another node at the previous owner’s address does not count: the claim waits its lease out', async () => {
    w.answeredAs = 'node-x';
    await w.a.tick();
    await w.admin.del(`turns:lease:${S1}`);
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    await w.expectWaitedOut(b);
    expect(w.asked).toHaveLength(1);
  });

  it('asks nothing of an address that is not a bare http(s) origin (the fence file is on a shared disk)', () => {
    expect(peerOrigin('http://10.0.0.5:4170')).toBe('http://10.0.0.5:4170');
    expect(peerOrigin('https://node-a.internal/')).toBe('https://node-a.internal');
    for (const url of [
      'http://169.254.169.254/latest?x=',
      'http://u:p@10.0.0.5',
      'file:///etc/passwd',
      'http://a/b',
      'not a url',
      'http://a/#x',
    ])
      expect(peerOrigin(url)).toBeUndefined();
  });

  it('a previous owner that does not answer is waited out: the claim resolves a lease after Redis answered it, not before', async () => {
    w.hang = true;
    await w.a.tick();
    await w.admin.del(`turns:lease:${S1}`);
    const warned = deferred<void>();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      if (String(message).includes('did not answer')) warned.resolve();
    });
    try {
      const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
      w.clock.time = 100;
      let resolved = false;
      const claimed = b.claim(S1).then(() => (resolved = true));
      await warned.promise;
      expect(w.asked).toHaveLength(1);
      // Held (and renewed) but not served while it waits.
      w.clock.time = 1_099;
      await new Promise((resolve) => setTimeout(resolve, 120));
      await settle();
      expect([resolved, b.holds(S1)]).toEqual([false, false]);
      w.clock.time = 1_100;
      await claimed;
      expect(b.holds(S1)).toBe(true);
    } finally {
      warn.mockRestore();
    }
  });
});
