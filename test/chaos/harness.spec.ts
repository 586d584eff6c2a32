import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { latestDueDelivery } from '../../chaos/due-deliveries.js';
import { opKind } from '../../chaos/recording-fetch.js';
import { Random } from '../../chaos/random.js';
import { runsTable } from '../../chaos/report.js';
import { makeSchedule } from '../../chaos/schedule.js';

const SETTINGS = { durationMs: 180_000, leaseMs: 3_000, webhookTimeoutMs: 2_000 };
type Episode = { kind: string; lane: string; target: string; at: number; healAt: number; slowMs?: number };
const schedule = (seed: string, settings = SETTINGS) => makeSchedule(new Random(seed).fork('schedule'), settings) as Episode[];

describe('chaos harness: the seeded schedule', () => {
  it('is the same for the same seed, and another for another seed', () => {
    expect(schedule('2931-0')).toEqual(schedule('2931-0'));
    expect(schedule('2931-1')).not.toEqual(schedule('2931-0'));
  });

  it('heals every fault by 80% of the run, never overlaps a lane with itself, and stops a node past its lease', () => {
    for (const seed of ['1', '7', '100', '2931-0', '2931-5']) {
      const episodes = schedule(seed);
      expect(episodes.length).toBeGreaterThan(0);
      for (const episode of episodes) {
        expect(episode.healAt).toBeLessThanOrEqual(SETTINGS.durationMs * 0.8);
        expect(episode.at).toBeGreaterThanOrEqual(SETTINGS.durationMs * 0.1);
        if (episode.kind === 'sigstop' || episode.kind === 'pause-append')
          expect(episode.healAt - episode.at).toBeGreaterThan(SETTINGS.leaseMs);
        if (['flushall', 'del-lease', 'cut-body'].includes(episode.kind)) expect(episode.healAt).toBe(episode.at);
      }
      const lanes = new Map<string, Episode[]>();
      for (const episode of episodes) lanes.set(episode.lane, [...(lanes.get(episode.lane) ?? []), episode]);
      for (const lane of lanes.values()) lane.slice(1).forEach((episode, i) => expect(episode.at).toBeGreaterThan(lane[i]!.healAt));
    }
  });

  it('draws every fault kind over a few schedules, each node fault aimed at a node', () => {
    const episodes = ['1', '2', '3', '4', '5'].flatMap((seed) => schedule(seed));
    const kinds = new Set(episodes.map((episode) => episode.kind));
    for (const kind of [
      'kill9',
      'sigstop',
      'sigterm',
      'pause-append',
      'redis',
      'flushall',
      'del-lease',
      'partition-redis',
      'partition-peers',
    ])
      expect(kinds).toContain(kind);
    for (const episode of episodes.filter((e) => ['nodes', 'network'].includes(e.lane) || e.kind === 'del-lease'))
      expect(['n1', 'n2', 'n3']).toContain(episode.target);
  });
});

describe('chaos harness: forked generators', () => {
  it('give each label its own sequence, unmoved by draws on another', () => {
    const a = new Random('s');
    const first = a.fork('c1').word(12);
    a.fork('c2').word(50);
    expect(new Random('s').fork('c1').word(12)).toBe(first);
    expect(new Random('s').fork('c2').word(12)).not.toBe(first);
  });
});

describe('chaos harness: op kinds of the history', () => {
  const kind = (method: string, path: string, final = false) => opKind(method, new URL(`http://h${path}`), final);
  it('names each route as CHAOS-HISTORY.md does', () => {
    expect(kind('POST', '/session')).toBe('create');
    expect(kind('POST', '/session/s1/load')).toBe('load');
    expect(kind('POST', '/session/s1/prompt')).toBe('prompt');
    expect(kind('GET', '/session/s1/turns/current')).toBe('current');
    expect(kind('GET', '/session/s1/turns/p1')).toBe('exact');
    expect(kind('GET', '/session/s1/turns/p1?waitMs=30000')).toBe('wait');
    expect(kind('GET', '/session/s1/turns?limit=20')).toBe('list');
    expect(kind('GET', '/session/s1/turns/p1', true)).toBe('final-exact');
    expect(kind('GET', '/session/s1/turns?limit=100', true)).toBe('final-list');
    expect(kind('POST', '/session/s1/cancel')).toBe('cancel');
    expect(kind('DELETE', '/session/s1/pending-prompts/p1')).toBe('remove');
    expect(kind('POST', '/session/s1/webhooks')).toBe('subscribe');
    expect(kind('GET', '/capabilities')).toBe('other');
  });
});

describe('chaos harness: the table across runs', () => {
  it("counts each property's violations per run and in all, and the injected faults only", () => {
    const run = (name: string, violations: number) => ({
      name,
      counts: { faults: { kill9: 1, restart: 1 }, ops: { prompt: 3, other: 2 } },
      result: { properties: [{ name: 'idempotency', violations: Array.from({ length: violations }, () => ({})) }], figures: {} },
      samples: { failover: [1_000, 3_000], nodeFaultAlone: [1_000], lag: [] },
    });
    const rows = runsTable([run('a', 0), run('b', 2)]).split('\n');
    expect(rows[0]).toContain('| idempotency |');
    expect(rows[2]).toBe('| a | kill9 1 | prompt 3 | 0 | - / - (0) | - / - | - / - |');
    expect(rows[3]).toContain('| b | kill9 1 | prompt 3 | 2 |');
    expect(rows[4]).toBe('| all 2 | kill9 2 | prompt 6 | 2 | 1.0 s / 3.0 s (0) | 1.0 s / 1.0 s | - / - |');
  });
});

describe('chaos harness: deliveries due after the final reads', () => {
  it('finds the latest due delivery with attempts left in any outbox, and none in an empty data dir', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-due-'));
    try {
      expect(latestDueDelivery(dir, 12)).toBeUndefined();
      const outbox = (name: string) => {
        mkdirSync(join(dir, 'webhooks', name), { recursive: true });
        return join(dir, 'webhooks', name);
      };
      writeFileSync(join(outbox('outbox-n1'), '1.json'), JSON.stringify({ attempts: 3, nextAttemptAt: 5_000 }));
      writeFileSync(join(outbox('outbox-n3'), '2.json'), JSON.stringify({ attempts: 7, nextAttemptAt: 9_000 }));
      // Given up (no attempt left), half written, or not a delivery: none of them is due.
      writeFileSync(join(outbox('outbox-n3'), '3.json'), JSON.stringify({ attempts: 12, nextAttemptAt: 20_000 }));
      writeFileSync(join(outbox('outbox-n3'), '4.json'), '{"attempts": 1, "nextAt');
      writeFileSync(join(outbox('outbox-n3'), '5.json.tmp'), JSON.stringify({ attempts: 1, nextAttemptAt: 30_000 }));
      expect(latestDueDelivery(dir, 12)).toBe(9_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
