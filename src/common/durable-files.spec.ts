import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test/support/test-daemon.js';
import { writeAtomically } from './durable-files.js';

describe('writeAtomically', () => {
  it('puts the new text in place, and leaves nothing else beside it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.json'), 'old');
    await writeAtomically(join(dir, 'state.json'), 'new');
    expect(readFileSync(join(dir, 'state.json'), 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('rejects with the failed write’s error and leaves no temp file behind', async () => {
    const dir = tempDir();
    // A rename over a directory that is not empty fails (EISDIR or ENOTEMPTY): the write after the sync.
    mkdirSync(join(dir, 'state.json', 'inside'), { recursive: true });
    await expect(writeAtomically(join(dir, 'state.json'), 'new')).rejects.toMatchObject({ code: expect.stringMatching(/^E/) });
    expect(readdirSync(dir)).toEqual(['state.json']);
    // A missing directory, not to be made: ENOENT, nothing written.
    await expect(writeAtomically(join(dir, 'gone', 'x.json'), 'new', { createDir: false })).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
