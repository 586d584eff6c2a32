import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SystemClock } from '../common/clock.js';
import { writeLargeTranscript } from '../../test/support/transcript-generator.js';
import { ChatRecordingService, type ChatRecordingOptions } from './chat-recording.service.js';
import type { TranscriptRecord } from './transcript-record.js';

describe('ChatRecordingService under crashes and hostile files', () => {
  const workspace = '/srv/project';
  let dataDir: string;
  const recorders: ChatRecordingService[] = [];
  const make = (options: Partial<ChatRecordingOptions> = {}) => {
    const made = new ChatRecordingService({ dataDir, enabled: true, ...options }, new SystemClock());
    recorders.push(made);
    return made;
  };
  const lines = (path: string) => readFileSync(path, 'utf8').split('\n');

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rec-crash-'));
  });
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((r) => r.closeAll()));
  });

  it('starts a new line after a torn final line, and the chain continues from the last record that parsed', async () => {
    const id = randomUUID();
    const first = make();
    await first.attach(id, workspace);
    const a = await first.append(id, { type: 'user', promptId: 'a' });
    const path = first.transcriptPath(workspace, id);
    appendFileSync(path, '{"uuid":"torn'); // a crash mid-write
    const again = make();
    await again.attach(id, workspace);
    const b = await again.append(id, { type: 'user', promptId: 'b' });
    expect(lines(path)).toEqual([
      expect.stringContaining('"promptId":"a"'),
      '{"uuid":"torn',
      expect.stringContaining('"promptId":"b"'),
      '',
    ]);
    expect(b?.parentUuid).toBe(a!.uuid);
  });

  it('keeps the chain when a full disk tears an append: the next one starts on its own line', async () => {
    const id = randomUUID();
    const recorder = make();
    await recorder.attach(id, workspace);
    const a = await recorder.append(id, { type: 'user', promptId: 'a' });
    const path = recorder.transcriptPath(workspace, id);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    // The open handle's next write tears: half the record reaches the disk.
    const internals = recorder as unknown as { open: Map<string, { appender: { handle: { write(data: string): Promise<unknown> } } }> };
    const handle = internals.open.get(id)!.appender.handle;
    handle.write = async (data) => {
      appendFileSync(path, data.slice(0, 20));
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    await expect(recorder.append(id, { type: 'assistant', promptId: 'a' })).resolves.toBeUndefined();
    const c = await recorder.append(id, { type: 'system', subtype: 'turn_result', promptId: 'a' });
    warn.mockRestore();
    expect(c?.parentUuid).toBe(a!.uuid);
    const written = lines(path);
    expect(written).toHaveLength(4);
    expect(JSON.parse(written[2]!).uuid).toBe(c!.uuid);
  });

  it.each([
    ['a symlink', (path: string, target: string) => symlinkSync(target, path)],
    ['a directory', (path: string) => mkdirSync(path)],
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
  ])('refuses %s in place of the transcript, leaving the target untouched', async (_kind, plant) => {
    const id = randomUUID();
    const recorder = make();
    const path = recorder.transcriptPath(workspace, id);
    mkdirSync(dirname(path), { recursive: true });
    const target = join(dataDir, 'victim.txt');
    writeFileSync(target, 'precious\n');
    plant(path, target);
    await expect(recorder.attach(id, workspace)).rejects.toMatchObject({ status: 409, code: 'transcript_unavailable' });
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
  });

  it('refuses to append through a symlink planted after attach', async () => {
    const id = randomUUID();
    const recorder = make();
    await recorder.attach(id, workspace);
    const path = recorder.transcriptPath(workspace, id);
    mkdirSync(dirname(path), { recursive: true });
    const target = join(dataDir, 'victim.txt');
    writeFileSync(target, 'precious\n');
    symlinkSync(target, path);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await expect(recorder.append(id, { type: 'user' })).resolves.toBeUndefined();
    warn.mockRestore();
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
  });

  it('answers 413 transcript_too_large for load, rewind and fork of a transcript over the bound', async () => {
    const id = randomUUID();
    const small = make({ maxTranscriptBytes: 10_000 });
    await small.attach(id, workspace); // no transcript yet: nothing to refuse
    const [first] = writeLargeTranscript(small.transcriptPath(workspace, id), id, 5, 4_000);
    const tooLarge = { status: 413, code: 'transcript_too_large', details: expect.objectContaining({ maxBytes: 10_000 }) };
    await expect(small.rewind(id, first!)).rejects.toMatchObject(tooLarge);
    await expect(small.fork(id, randomUUID(), workspace)).rejects.toMatchObject(tooLarge);
    await expect(make({ maxTranscriptBytes: 10_000 }).attach(id, workspace)).rejects.toMatchObject(tooLarge);
  });

  it('rewinds and forks a transcript of many pages, walking it page by page', async () => {
    const id = randomUUID();
    const recorder = make();
    const promptIds = writeLargeTranscript(recorder.transcriptPath(workspace, id), id, 40, 300_000); // ~12 MB, 3 pages
    await recorder.attach(id, workspace);
    const forkId = randomUUID();
    await recorder.fork(id, forkId, workspace);
    const forked = lines(recorder.transcriptPath(workspace, forkId))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as TranscriptRecord);
    expect(forked).toHaveLength(80); // user + model per turn; no turn_result
    expect(forked.every((r, i) => r.parentUuid === (i === 0 ? null : forked[i - 1]!.uuid))).toBe(true);
    await expect(recorder.rewind(id, promptIds[0]!)).resolves.toBe(true);
    await expect(recorder.rewind(id, promptIds[1]!)).resolves.toBe(false); // the whole chain left with the first prompt
  });
});
