import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

  it('drops a torn temp only in its own outbox at start; another node adopting it leaves it', async () => {
    interruptedWrite(dir, delivery(), '{"deliveryId":"msg_d37');
    expect(await new WebhookOutbox(dir).recover(false)).toBe(0);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(await new WebhookOutbox(dir).recover(true)).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("adopting a dead node's outbox takes its interrupted deliveries too", async () => {
    interruptedWrite(dir, delivery());
    const mine = join(dir, 'mine');
    const adopter = new WebhookOutbox(mine);
    expect(await adopter.adopt(dir)).toBe(1);
    expect(await listed(adopter)).toEqual([{ deliveryId: ID, at: delivery().nextAttemptAt }]);
  });
});
