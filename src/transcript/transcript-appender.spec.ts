import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotRegularFileError } from './transcript-errors.js';
import { TranscriptAppender } from './transcript-appender.js';

describe('TranscriptAppender', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'appender-'))));

  it('creates the file and its directory, and opens it once for many appends', async () => {
    const path = join(dir, 'chats', 't.jsonl');
    const appender = new TranscriptAppender(path);
    const handleOf = () => (appender as unknown as { handle?: object }).handle;
    await appender.append('{"n":1}');
    const first = handleOf();
    await appender.append('{"n":2}');
    await appender.append('{"n":3}');
    expect(first).toBeDefined();
    expect(handleOf()).toBe(first);
    await appender.close();
    expect(handleOf()).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  });

  it('closes a torn last line once, at open', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, '{"n":1}\n{"n":2,"to');
    const appender = new TranscriptAppender(path);
    await appender.append('{"n":3}');
    await appender.append('{"n":4}');
    await appender.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2,"to\n{"n":3}\n{"n":4}\n');
  });

  it('after a failed write, opens again and closes the line that write tore', async () => {
    const path = join(dir, 't.jsonl');
    const appender = new TranscriptAppender(path);
    await appender.append('{"n":1}');
    const handle = (appender as unknown as { handle: { write(data: string): Promise<unknown> } }).handle;
    handle.write = async (data) => {
      appendFileSync(path, data.slice(0, 4)); // half the line reached the disk
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    await expect(appender.append('{"n":2}')).rejects.toMatchObject({ code: 'ENOSPC' });
    await appender.append('{"n":3}');
    await appender.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n"\n{"n":3}\n');
  });

  it('a close while a write is still opening the file closes that handle too; later appends write nothing', async () => {
    const path = join(dir, 't.jsonl');
    const appender = new TranscriptAppender(path);
    const handleOf = () => (appender as unknown as { handle?: { fd: number } }).handle;
    const write = appender.append('{"n":1}'); // still opening the file when close is called
    const close = appender.close();
    await expect(write).resolves.toBe(true);
    const opened = handleOf();
    await close;
    expect(handleOf()).toBeUndefined();
    expect(opened?.fd ?? -1).toBe(-1);
    await expect(appender.append('{"n":2}')).resolves.toBe(false);
    expect(handleOf()).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n');
  });

  it('refuses a symlink or a directory in place of the transcript', async () => {
    const target = join(dir, 'victim.txt');
    writeFileSync(target, 'precious\n');
    symlinkSync(target, join(dir, 'link.jsonl'));
    await expect(new TranscriptAppender(join(dir, 'link.jsonl')).append('{}')).rejects.toMatchObject({ code: 'ELOOP' });
    mkdirSync(join(dir, 'dir.jsonl'));
    await expect(new TranscriptAppender(join(dir, 'dir.jsonl')).append('{}')).rejects.toThrow();
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(NotRegularFileError).toBeDefined();
  });
});
