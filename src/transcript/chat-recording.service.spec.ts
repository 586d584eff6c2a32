import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemClock } from '../common/clock.js';
import { ChatRecordingService, workspaceKey } from './chat-recording.service.js';
import type { TranscriptRecord } from './transcript-record.js';

describe('ChatRecordingService', () => {
  let dataDir: string;
  let recorder: ChatRecordingService;
  const workspace = '/srv/project';
  const read = (sessionId: string): TranscriptRecord[] =>
    readFileSync(recorder.transcriptPath(workspace, sessionId), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rec-'));
    recorder = new ChatRecordingService({ dataDir, enabled: true }, new SystemClock());
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
    const again = new ChatRecordingService({ dataDir, enabled: true }, new SystemClock());
    await again.attach(id, workspace);
    const next = await again.append(id, { type: 'assistant' });
    expect(next?.parentUuid).toBe(first!.uuid);
  });

  it('writes nothing when disabled, and reports a failed append as undefined', async () => {
    const off = new ChatRecordingService({ dataDir, enabled: false }, new SystemClock());
    const id = randomUUID();
    await off.attach(id, workspace);
    await expect(off.append(id, { type: 'user' })).resolves.toBeUndefined();
    await expect(off.exists(workspace, id)).resolves.toBe(false);
    expect(off.pathOf(id)).toBeUndefined(); // so a scan does no I/O either

    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const broken = new ChatRecordingService({ dataDir: '/dev/null/not-a-dir', enabled: true }, new SystemClock());
    await broken.attach(id, workspace);
    await expect(
      broken.append(id, { type: 'user', message: { role: 'user', parts: [{ text: 'secret prompt' }] } }),
    ).resolves.toBeUndefined();
    // Logged without the record's content.
    expect(warn).toHaveBeenCalledWith(expect.not.stringContaining('secret prompt'));
    warn.mockRestore();
  });

  it('rewinds by appending a system/rewind record parented before the prompt', async () => {
    const id = randomUUID();
    await recorder.attach(id, workspace);
    await recorder.append(id, { type: 'user', promptId: 'a' });
    const aEnd = await recorder.append(id, { type: 'system', subtype: 'turn_result', promptId: 'a' });
    await recorder.append(id, { type: 'user', promptId: 'b' });
    await recorder.append(id, { type: 'assistant', promptId: 'b' });
    await expect(recorder.rewind(id, 'b')).resolves.toBe(true);
    const chain = await recorder.activeChain(id);
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
