import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemClock } from '../common/clock.js';
import { ChatRecordingService, workspaceKey, type ChatRecordingOptions } from './chat-recording.service.js';
import type { TranscriptRecord } from './transcript-record.js';

/** The parentUuid walk back from the last record, oldest first. */
function activeChain(records: TranscriptRecord[]): TranscriptRecord[] {
  const byUuid = new Map(records.map((r) => [r.uuid, r]));
  const chain: TranscriptRecord[] = [];
  for (let r = records.at(-1); r; r = r.parentUuid === null ? undefined : byUuid.get(r.parentUuid)) chain.unshift(r);
  return chain;
}

describe('ChatRecordingService', () => {
  let dataDir: string;
  let recorder: ChatRecordingService;
  const workspace = '/srv/project';
  const read = (sessionId: string): TranscriptRecord[] =>
    readFileSync(recorder.transcriptPath(workspace, sessionId), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));

  // Every recorder a test makes is closed after it: a transcript handle left open is a leak (an error on Node 26).
  const recorders: ChatRecordingService[] = [];
  const make = (options: Partial<ChatRecordingOptions> = {}) => {
    const made = new ChatRecordingService({ dataDir, enabled: true, ...options }, new SystemClock());
    recorders.push(made);
    return made;
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rec-'));
    recorder = make();
  });
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((r) => r.closeAll()));
  });

  it('lays files out as <dataDir>/<workspace>/chats/<sessionId>.jsonl', () => {
    const id = randomUUID();
    expect(recorder.transcriptPath(workspace, id)).toBe(join(dataDir, workspaceKey(workspace), 'chats', `${id}.jsonl`));
    expect(workspaceKey('/a/project')).not.toBe(workspaceKey('/b/project'));
  });

  it('refuses ids that could name a path outside the directory', () => {
    for (const id of ['../../etc/passwd', 'a/b', '', '..', 'x'.repeat(36)]) {
      expect(() => recorder.transcriptPath(workspace, id)).toThrow();
    }
  });

  it('chains serialized appends through parentUuid, in call order', async () => {
    const id = randomUUID();
    await recorder.attach(id, workspace);
    const writes = [1, 2, 3].map((n) =>
      recorder.append(id, { type: 'assistant', message: { role: 'model', parts: [{ text: String(n) }] } }),
    );
    await Promise.all(writes);
    const records = read(id);
    expect(records.map((r) => (r.message!.parts[0] as { text: string }).text)).toEqual(['1', '2', '3']);
    expect(records[0]!.parentUuid).toBeNull();
    expect(records[1]!.parentUuid).toBe(records[0]!.uuid);
    expect(records[2]!.parentUuid).toBe(records[1]!.uuid);
    expect(records.every((r) => r.sessionId === id && !Number.isNaN(Date.parse(r.timestamp)))).toBe(true);
  });

  it('continues the chain of a resumed session', async () => {
    const id = randomUUID();
    await recorder.attach(id, workspace);
    const first = await recorder.append(id, { type: 'user', promptId: 'p' });
    const again = make();
    await again.attach(id, workspace);
    const next = await again.append(id, { type: 'assistant' });
    expect(next?.parentUuid).toBe(first!.uuid);
  });

  it('writes nothing when disabled, and reports a failed append as undefined', async () => {
    const off = make({ enabled: false });
    const id = randomUUID();
    await off.attach(id, workspace);
    await expect(off.append(id, { type: 'user' })).resolves.toBeUndefined();
    await expect(off.exists(workspace, id)).resolves.toBe(false);
    expect(off.pathOf(id)).toBeUndefined(); // so a scan does no I/O either

    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const broken = make({ dataDir: '/dev/null/not-a-dir' });
    await broken.attach(id, workspace);
    await expect(
      broken.append(id, { type: 'user', message: { role: 'user', parts: [{ text: 'secret prompt' }] } }),
    ).resolves.toBeUndefined();
    // Logged without the record's content.
    expect(warn).toHaveBeenCalledWith(expect.not.stringContaining('secret prompt'));
    warn.mockRestore();
  });

  it('asks mayWrite before each write and drops a refused one, also when the answer comes later', async () => {
    const id = randomUUID();
    let answer: (allowed: boolean) => void = () => undefined;
    const verdicts: Array<boolean | Promise<boolean>> = [true, new Promise((resolve) => (answer = resolve)), false, true];
    const fenced = make({ mayWrite: () => verdicts.shift()! });
    await fenced.attach(id, workspace);
    const writes = ['one', 'two', 'three', 'four'].map((text) =>
      fenced.append(id, { type: 'user', message: { role: 'user', parts: [{ text }] } }),
    );
    // The second write waits for its verdict, and the later ones wait behind it.
    await writes[0];
    answer(false);
    const written = await Promise.all(writes);
    expect(written.map((r) => r !== undefined)).toEqual([true, false, false, true]);
    expect(read(id).map((r) => r.message?.parts[0])).toEqual([{ text: 'one' }, { text: 'four' }]);
    expect(read(id)[1]!.parentUuid).toBe(read(id)[0]!.uuid);
  });

  it('abandon drops the writes not yet made; detach would have flushed them', async () => {
    const id = randomUUID();
    await recorder.attach(id, workspace);
    await recorder.append(id, { type: 'user', message: { role: 'user', parts: [{ text: 'kept' }] } });
    const late = recorder.append(id, { type: 'user', message: { role: 'user', parts: [{ text: 'dropped' }] } });
    recorder.abandon(id);
    expect(await late).toBeUndefined();
    expect(await recorder.append(id, { type: 'user', message: { role: 'user', parts: [{ text: 'after' }] } })).toBeUndefined();
    expect(read(id).map((r) => r.message?.parts[0])).toEqual([{ text: 'kept' }]);
  });

  it('closes the transcript it keeps open on detach, abandon (after the write under way) and closeAll', async () => {
    const appenderOf = (r: ChatRecordingService, id: string) =>
      (r as unknown as { open: Map<string, { appender: { close(): Promise<void> } }> }).open.get(id)!.appender;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [a, b, c]) await recorder.attach(id, workspace);
    const closes = [a, b, c].map((id) => jest.spyOn(appenderOf(recorder, id), 'close'));
    await recorder.append(a, { type: 'user' });
    await recorder.detach(a);
    expect(closes[0]).toHaveBeenCalledTimes(1);
    const writing = recorder.append(b, { type: 'user', promptId: 'under way' });
    recorder.abandon(b);
    expect(closes[1]).not.toHaveBeenCalled();
    await writing;
    await new Promise((resolve) => setImmediate(resolve));
    expect(closes[1]).toHaveBeenCalledTimes(1);
    await recorder.append(c, { type: 'user' });
    await recorder.closeAll();
    expect(closes[2]).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['closeAll', (r: ChatRecordingService) => r.closeAll()],
    ['detach', (r: ChatRecordingService, id: string) => r.detach(id)],
  ])('leaves no transcript handle open when an append is queued while %s waits for the writes', async (_name, stop) => {
    const id = randomUUID();
    await recorder.attach(id, workspace);
    const appender = (recorder as unknown as { open: Map<string, { appender: object }> }).open.get(id)!.appender;
    const first = recorder.append(id, { type: 'user', promptId: 'a' });
    const stopping = stop(recorder, id);
    const late = recorder.append(id, { type: 'assistant', promptId: 'a' });
    await Promise.all([first, stopping, late]);
    expect((appender as { handle?: unknown }).handle).toBeUndefined();
    // The queued write either made it before the close or wrote nothing; never a record after the close.
    const written = read(id);
    expect(written.length === 1 || written[1]!.uuid === (await late)?.uuid).toBe(true);
  });

  it('rewinds by appending a system/rewind record parented before the prompt', async () => {
    const id = randomUUID();
    await recorder.attach(id, workspace);
    await recorder.append(id, { type: 'user', promptId: 'a' });
    const aEnd = await recorder.append(id, { type: 'system', subtype: 'turn_result', promptId: 'a' });
    await recorder.append(id, { type: 'user', promptId: 'b' });
    await recorder.append(id, { type: 'assistant', promptId: 'b' });
    await expect(recorder.rewind(id, 'b')).resolves.toBe(true);
    const chain = activeChain(read(id));
    expect(chain.map((r) => r.promptId ?? r.subtype)).toEqual(['a', 'a', 'rewind']);
    expect(chain.at(-1)!.parentUuid).toBe(aEnd!.uuid);
    await expect(recorder.rewind(id, 'b')).resolves.toBe(false); // no longer on the active chain
    await expect(recorder.rewind(id, 'never')).resolves.toBe(false);
  });

  it('forks the active chain without turn_result records, re-parenting their children', async () => {
    const id = randomUUID();
    await recorder.attach(id, workspace);
    const user = await recorder.append(id, { type: 'user', promptId: 'a' });
    await recorder.append(id, { type: 'system', subtype: 'turn_result', promptId: 'a' });
    const after = await recorder.append(id, { type: 'user', promptId: 'b' });
    const forkId = randomUUID();
    await recorder.fork(id, forkId, workspace);
    const forked = read(forkId);
    expect(forked.map((r) => r.type)).toEqual(['user', 'user']);
    expect(forked[1]).toMatchObject({ uuid: after!.uuid, parentUuid: user!.uuid, sessionId: forkId });
    // The fork records on from its own last record.
    const next = await recorder.append(forkId, { type: 'assistant' });
    expect(next?.parentUuid).toBe(after!.uuid);
  });
});
