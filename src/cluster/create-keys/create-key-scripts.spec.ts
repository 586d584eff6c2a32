import { Redis } from 'ioredis';
import { HAS_REDIS, startRedis, type RedisProcess } from '../../../test/support/redis-server.js';
import { CreateKeyScripts, decodeBegin, decodeMarkReply } from './create-key-scripts.js';

const ANSWER = { status: 200, body: { sessionId: 's', clientId: 'c' } };

describe('create key script decoders', () => {
  it('BEGIN: nil is no record found (the key marked), a string the record found', () => {
    expect(decodeBegin(null)).toEqual({});
    expect(decodeBegin('{"fingerprint":"f","mark":"m"}')).toEqual({ found: { fingerprint: 'f', mark: 'm' } });
  });

  it('ABANDON, HOLD, COMPLETE: 1 is "was this request\'s mark", anything else is not', () => {
    expect(decodeMarkReply(1)).toEqual({ mine: true });
    expect(decodeMarkReply(0)).toEqual({ mine: false });
  });
});

(HAS_REDIS ? describe : describe.skip)('CreateKeyScripts (real redis-server)', () => {
  let redis: RedisProcess;
  let client: Redis;
  let scripts: CreateKeyScripts;
  const mark = JSON.stringify({ fingerprint: 'f', mark: 'm1' });
  const other = JSON.stringify({ fingerprint: 'f', mark: 'm2' });

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
    scripts = new CreateKeyScripts(client);
  });
  afterEach(() => client.flushall());
  afterAll(async () => {
    client.disconnect();
    await redis.kill();
  });

  it('begin marks an unknown key for its ttl, and finds the mark a second begin meets', async () => {
    await expect(scripts.begin('k', mark, 1_000)).resolves.toEqual({});
    const ttl = await client.pttl('k');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_000);
    await expect(scripts.begin('k', other, 1_000)).resolves.toEqual({ found: { fingerprint: 'f', mark: 'm1' } });
  });

  it('hold, complete and abandon act only while the key is the given mark', async () => {
    await scripts.begin('k', mark, 1_000);
    await expect(scripts.hold('k', other, 60_000)).resolves.toEqual({ mine: false });
    await expect(scripts.hold('k', mark, 60_000)).resolves.toEqual({ mine: true });
    expect(await client.pttl('k')).toBeGreaterThan(1_000);
    await expect(scripts.abandon('k', other)).resolves.toEqual({ mine: false });
    await expect(scripts.complete('k', other, { fingerprint: 'f', answer: ANSWER }, 60_000)).resolves.toEqual({ mine: false });
    await expect(scripts.complete('k', mark, { fingerprint: 'f', answer: ANSWER }, 60_000)).resolves.toEqual({ mine: true });
    await expect(scripts.begin('k', other, 1_000)).resolves.toEqual({ found: { fingerprint: 'f', answer: ANSWER } });
    // Answered: no longer the mark, so a late abandon leaves it.
    await expect(scripts.abandon('k', mark)).resolves.toEqual({ mine: false });
    expect(await client.exists('k')).toBe(1);
  });

  it('abandon deletes its own mark', async () => {
    await scripts.begin('k', mark, 1_000);
    await expect(scripts.abandon('k', mark)).resolves.toEqual({ mine: true });
    expect(await client.exists('k')).toBe(0);
  });
});
