import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataDirWritable, firstFailing, readinessLine, redisUp, type ReadinessCheck } from './readiness-checks.js';

const fixed = (name: string, result: boolean | Error): ReadinessCheck => ({
  name,
  passes: () => (result instanceof Error ? Promise.reject(result) : Promise.resolve(result)),
});

describe('readiness checks', () => {
  it('firstFailing names the first failing check in order, and a throwing check fails', async () => {
    expect(await firstFailing([fixed('a', true), fixed('b', true)])).toBeUndefined();
    expect(await firstFailing([fixed('a', true), fixed('b', false), fixed('c', false)])).toBe('b');
    expect(await firstFailing([fixed('a', new Error('boom')), fixed('b', false)])).toBe('a');
  });

  it('the data dir passes when a file can be created in it, and leaves nothing behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turns-ready-'));
    try {
      expect(await dataDirWritable(dir).passes()).toBe(true);
      expect(readdirSync(dir)).toEqual([]);
      // Not made yet: made, like the recorder's first write would.
      expect(await dataDirWritable(join(dir, 'later')).passes()).toBe(true);
      expect(readdirSync(join(dir, 'later'))).toEqual([]);
      // A data dir that is a file takes no write — even for root, who ignores permission bits.
      const file = join(dir, 'not-a-dir');
      writeFileSync(file, '');
      expect(await dataDirWritable(file).passes()).toBe(false);
      expect(await dataDirWritable(join(file, 'below')).passes()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('redis fails only when the cluster reports it down (a single daemon has no Redis to need)', async () => {
    expect(await redisUp(() => undefined).passes()).toBe(true);
    expect(await redisUp(() => ({ nodeId: 'a', redis: 'up', leases: 0 })).passes()).toBe(true);
    expect(await redisUp(() => ({ nodeId: 'a', redis: 'down', leases: 0 })).passes()).toBe(false);
  });

  it('readinessLine speaks only on a change: warn on turning not ready or failing another check, info when ready again', () => {
    expect(readinessLine(undefined, undefined)).toBeUndefined();
    expect(readinessLine('redis', 'redis')).toBeUndefined();
    expect(readinessLine(undefined, 'data_dir_writable')).toEqual({
      level: 'warn',
      message: 'not ready: the data_dir_writable check fails; GET /health/ready answers 503 until it passes',
    });
    expect(readinessLine('data_dir_writable', 'redis')).toMatchObject({
      level: 'warn',
      message: expect.stringContaining('the redis check fails'),
    });
    expect(readinessLine('redis', undefined)).toEqual({
      level: 'log',
      message: 'ready again (redis passes); GET /health/ready answers 200',
    });
  });
});
