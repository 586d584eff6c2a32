import { check } from '../../chaos/checker/idempotency.js';
import { check as checkKeys } from '../../chaos/checker/keys-unique.js';
import { dataDirView, pid, prompt, runOf, SID, transcript } from './synthetic-run.js';

describe('chaos checker: idempotency', () => {
  it('passes retries that got the same promptId back under one key', () => {
    const run = runOf([prompt(0, pid(1), { key: 'k1' }), prompt(50, pid(1), { key: 'k1' }), prompt(90, pid(2), { key: 'k2' })]);
    expect(check(run)).toEqual([]);
  });

  it('reports a key that admitted two prompts, with both answers as the slice', () => {
    const first = prompt(0, pid(1), { key: 'k1' });
    const second = prompt(50, pid(2), { key: 'k1' });
    const violations = check(runOf([first, second]));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain('admitted 2 prompts');
    expect(violations[0]!.slice).toEqual([first, second]);
  });

  it('reports two different bodies accepted under one key', () => {
    const violations = check(runOf([prompt(0, pid(1), { key: 'k1', bodyHash: 'a' }), prompt(50, pid(1), { key: 'k1', bodyHash: 'b' })]));
    expect(violations.map((v) => v.message)).toEqual([expect.stringContaining('2 different bodies')]);
  });

  it('scopes a key per client and session, as the daemon does', () => {
    const run = runOf([prompt(0, pid(1), { key: 'k1', client: 'c1' }), prompt(50, pid(2), { key: 'k1', client: 'c2' })]);
    expect(check(run)).toEqual([]);
  });

  it('reports two user records of one key in a transcript, even when no client saw both answers', () => {
    const idempotency = { key: 'k1', fingerprint: 'f', clientId: 'client_1' };
    const twice = transcript([
      { type: 'user', promptId: pid(1), idempotency },
      { type: 'system', subtype: 'turn_result', promptId: pid(1) },
      { type: 'user', promptId: pid(2), idempotency },
    ]);
    const violations = check(runOf([], { transcripts: [twice] }));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain(`session ${SID} reached the transcript with 2 prompts`);
    expect(violations[0]!.slice).toEqual([twice.records[0], twice.records[2]]);
  });

  it('passes one user record a key in a transcript', () => {
    const once = transcript([
      { type: 'user', promptId: pid(1), idempotency: { key: 'k1', fingerprint: 'f' } },
      { type: 'user', promptId: pid(2), idempotency: { key: 'k2', fingerprint: 'f' } },
    ]);
    expect(check(runOf([], { transcripts: [once] }))).toEqual([]);
  });

  it("reads the transcript as the daemon does: a stale owner's user record of the key after a newer marker is no second prompt", () => {
    const idempotency = { key: 'k1', fingerprint: 'f', clientId: 'client_1' };
    // n1 (fence 3) held prompt 1's user record between its fence check and its append; n2 claimed (marker 5) and ran
    // prompt 2 under the same key; n1's record landed after n2's.
    const lines = (staleFence: number) =>
      transcript([
        { type: 'system', subtype: 'fence', fence: 3 },
        { type: 'system', subtype: 'fence', fence: 5 },
        { type: 'user', promptId: pid(2), idempotency, fence: 5 },
        { type: 'user', promptId: pid(1), idempotency, parentUuid: 'u2', fence: staleFence },
      ]).records.map(({ record }) => record);
    const kinds = (staleFence: number) => {
      const { transcripts } = dataDirView({ [`${SID}.jsonl`]: lines(staleFence) });
      return [...check(runOf([], { transcripts })), ...checkKeys(runOf([], { transcripts }))].map((v) => v.kind);
    };
    expect(kinds(3)).toEqual([]);
    expect(kinds(5)).toEqual(['transcript-two-prompts', 'prompt-key-two-prompts']);
  });
});
