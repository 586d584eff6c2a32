import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SystemClock } from '../common/clock.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { SessionOwnerFiles } from './session-owner-files.js';

const SESSION = '0b7e8a52-2f0c-4a57-9d6e-6f1f4d1c0a11';

describe('SessionOwnerFiles', () => {
  let dataDir: string;
  let recorder: ChatRecordingService;
  let owners: SessionOwnerFiles;
  const workspace = '/work/space';
  const ownerFile = () => recorder.transcriptPath(workspace, SESSION).replace(/\.jsonl$/, '.owner.json');

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'owner-files-'));
    recorder = new ChatRecordingService({ dataDir, enabled: true }, new SystemClock());
    owners = new SessionOwnerFiles(recorder);
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes the owner beside the transcript and reads it back', async () => {
    await owners.write(SESSION, workspace, 'alice');
    expect(JSON.parse(readFileSync(ownerFile(), 'utf8'))).toEqual({ v: 1, owner: 'alice' });
    await expect(owners.read(SESSION, workspace)).resolves.toBe('alice');
  });

  it('writes nothing for a session with no owner, which reads back as none', async () => {
    await owners.write(SESSION, workspace, undefined);
    await expect(owners.read(SESSION, workspace)).resolves.toBeUndefined();
  });

  it('throws for a record it cannot read as an owner: a load must not take an owned session for an unowned one', async () => {
    mkdirSync(dirname(ownerFile()), { recursive: true });
    writeFileSync(ownerFile(), '{"v":1}');
    await expect(owners.read(SESSION, workspace)).rejects.toThrow('names no owner');
    writeFileSync(ownerFile(), 'not json');
    await expect(owners.read(SESSION, workspace)).rejects.toThrow();
  });

  it('answers the owner to a principal that may see the session, and nothing to another or for an unreadable record', async () => {
    await owners.write(SESSION, workspace, 'alice');
    await expect(owners.visibleTo(SESSION, workspace, { name: 'alice', operator: false })).resolves.toEqual({ owner: 'alice' });
    await expect(owners.visibleTo(SESSION, workspace, { name: 'root', operator: true })).resolves.toEqual({ owner: 'alice' });
    await expect(owners.visibleTo(SESSION, workspace, { name: 'bob', operator: false })).resolves.toBeUndefined();
    await expect(owners.visibleTo(SESSION, workspace, undefined)).resolves.toBeUndefined();
    writeFileSync(ownerFile(), 'not json');
    await expect(owners.visibleTo(SESSION, workspace, { name: 'root', operator: true })).resolves.toBeUndefined();
  });
});
