import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebhookDelivery } from './webhook-delivery.js';
import { WebhookOutbox } from './webhook-outbox.js';

const ID = 'msg_d3745c58-1965-4eda-9e7b-96b5fbe43619';
const delivery = (deliveryId = ID, nextAttemptAt = 1_796_192_019_575): WebhookDelivery => ({
  deliveryId,
  target: { kind: 'operator' },
  sessionId: 's1',
  promptId: 'p1',
  type: 'turn.completed',
  body: '{"type":"turn.completed"}',
  attempts: 0,
  nextAttemptAt,
  createdAt: nextAttemptAt,
});
const nameOf = (d: WebhookDelivery) => `${String(d.nextAttemptAt).padStart(15, '0')}_${d.deliveryId}.json`;
/** What a `kill -9` between writeAtomically's sync and its rename leaves: the whole delivery, under the temp name. */
const interruptedWrite = (dir: string, d: WebhookDelivery, text = JSON.stringify(d)) =>
  writeFileSync(join(dir, `${nameOf(d)}.8a3b14c3-6674-44c4-b8fc-e284a50d5227.tmp`), text);

describe('WebhookOutbox.recover (a crash between the sync and the rename of a delivery; chaos seed 7)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'outbox-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const listed = async (outbox: WebhookOutbox) => {
    const entries = [];
    for await (const entry of outbox.entries()) entries.push(entry);
    return entries;
  };

  it('puts a synced, unrenamed delivery in place: it is pending again', async () => {
    interruptedWrite(dir, delivery());
    const outbox = new WebhookOutbox(dir);
    expect(await listed(outbox)).toEqual([]);
    expect(await outbox.recover(true)).toBe(1);
    expect(await listed(outbox)).toEqual([{ deliveryId: ID, at: delivery().nextAttemptAt }]);
    expect(await outbox.get({ deliveryId: ID, at: delivery().nextAttemptAt })).toEqual(delivery());
    expect(readdirSync(dir)).toEqual([nameOf(delivery())]);
  });

  it('drops the temp of a rewrite the crash cut (the delivery still has its file): one pending entry, not two', async () => {
    const outbox = new WebhookOutbox(dir);
    await outbox.put(delivery());
    interruptedWrite(dir, { ...delivery(), attempts: 1, nextAttemptAt: 1_796_192_020_000 });
    expect(await outbox.recover(true)).toBe(0);
    expect(await listed(outbox)).toEqual([{ deliveryId: ID, at: delivery().nextAttemptAt }]);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('drops a torn temp only when told nobody writes there (its own outbox at start, one renamed away to adopt)', async () => {
    interruptedWrite(dir, delivery(), '{"deliveryId":"msg_d37');
    expect(await new WebhookOutbox(dir).recover(false)).toBe(0);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(await new WebhookOutbox(dir).recover(true)).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("adopting a dead node's outbox takes its interrupted deliveries too", async () => {
    const dead = join(dir, 'outbox-dead');
    mkdirSync(dead);
    interruptedWrite(dead, delivery());
    const adopter = new WebhookOutbox(join(dir, 'outbox-me'));
    expect(await adopter.adopt(dead)).toBe(1);
    expect(await listed(adopter)).toEqual([{ deliveryId: ID, at: delivery().nextAttemptAt }]);
  });
});

describe('WebhookOutbox.adopt (issue 36: adopt only the dead, and never race a live owner)', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'outboxes-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('renames the whole outbox away first: its owner, still alive, writes into a new one that nobody takes', async () => {
    const owner = new WebhookOutbox(join(root, 'outbox-a'));
    const adopter = new WebhookOutbox(join(root, 'outbox-b'));
    await owner.put(delivery());
    expect(await adopter.adopt(join(root, 'outbox-a'))).toBe(1);
    expect(readdirSync(root).sort()).toEqual(['outbox-b']);
    // The owner's next write makes its outbox again; the adopter's holds only what it took.
    const later = delivery('msg_0c1e3c37-4a8a-4a4e-9c1c-3ae0d8a6f2b1');
    await owner.put(later);
    expect(readdirSync(join(root, 'outbox-a'))).toEqual([nameOf(later)]);
    expect(readdirSync(join(root, 'outbox-b'))).toEqual([nameOf(delivery())]);
    // The owner finds the file it had scheduled gone (sent by the adopter), rather than sending it too.
    expect(await owner.get({ deliveryId: ID, at: delivery().nextAttemptAt })).toBeUndefined();
  });

  it('a rewrite after the outbox was adopted writes nothing and says so: the adopter owns the delivery now', async () => {
    const owner = new WebhookOutbox(join(root, 'outbox-a'));
    await owner.put(delivery());
    expect(await new WebhookOutbox(join(root, 'outbox-b')).adopt(join(root, 'outbox-a'))).toBe(1);
    // Before: the rewrite made `outbox-a` again, and both nodes retried the delivery for ever.
    expect(await owner.put({ ...delivery(), attempts: 1, nextAttemptAt: 1_796_192_020_000 }, delivery().nextAttemptAt)).toBe(false);
    expect(readdirSync(root).sort()).toEqual(['outbox-b']);
    expect(readdirSync(join(root, 'outbox-b'))).toEqual([nameOf(delivery())]);
  });

  it('a second adopter of the same outbox takes nothing', async () => {
    await new WebhookOutbox(join(root, 'outbox-a')).put(delivery());
    expect(await new WebhookOutbox(join(root, 'outbox-b')).adopt(join(root, 'outbox-a'))).toBe(1);
    expect(await new WebhookOutbox(join(root, 'outbox-c')).adopt(join(root, 'outbox-a'))).toBe(0);
  });

  it('an adoption a crash cut short is finished at the adopter’s next start, and by whoever adopts the adopter', async () => {
    const mine = join(root, 'outbox-b');
    const cut = join(mine, 'adopting-5b0c8f52-7d3e-4a59-8f0e-2a6f4b1c9d10');
    mkdirSync(cut, { recursive: true });
    await new WebhookOutbox(cut).put(delivery());
    // Adopted in turn (the adopter died): the nested adoption comes along.
    const third = new WebhookOutbox(join(root, 'outbox-c'));
    expect(await third.adopt(mine)).toBe(1);
    expect(readdirSync(join(root, 'outbox-c'))).toEqual([nameOf(delivery())]);
    // Or its own start finishes it.
    const again = join(root, 'outbox-c', 'adopting-0d5e1a44-2b7c-4c1e-9a55-6c3b7e8f1a22');
    mkdirSync(again);
    await new WebhookOutbox(again).put(delivery('msg_0c1e3c37-4a8a-4a4e-9c1c-3ae0d8a6f2b1'));
    await third.recover(true);
    expect(readdirSync(join(root, 'outbox-c'))).toHaveLength(2); // two deliveries, and the adopted directory gone
  });
});
