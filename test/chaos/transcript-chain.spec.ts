import { check } from '../../chaos/checker/transcript-chain.js';
import { dataDirView, pid, runOf, SID, transcript } from './synthetic-run.js';

const turn = (n: number) => [
  { type: 'user', promptId: pid(n) },
  { type: 'assistant', promptId: pid(n) },
  { type: 'system', subtype: 'turn_result', promptId: pid(n) },
];
const messages = (file: ReturnType<typeof transcript>) => check(runOf([], { transcripts: [file] })).map((v) => v.message);
/** The violations of these records, chained as `transcript` chains them, once written to a data dir and read back. */
const onDisk = (records: Array<Record<string, unknown>>) => {
  const { transcripts } = dataDirView({ [`${SID}.jsonl`]: transcript(records).records.map(({ record }) => record) });
  return check(runOf([], { transcripts })).map((v) => `${v.kind}: ${v.message}`);
};
const marker = (fence: number, parentUuid?: string) => ({ type: 'system', subtype: 'fence', fence, ...(parentUuid && { parentUuid }) });

describe('chaos checker: one writer a transcript', () => {
  it('passes whole turns on one chain, a crash-torn turn followed by the next, and a rewind', () => {
    const file = transcript([...turn(1), { type: 'user', promptId: pid(2) }, { type: 'assistant', promptId: pid(2) }, ...turn(3)]);
    // A rewind of prompt 3: parented where prompt 3's user record was, so it shares that parent.
    file.records.push({
      ...file.records[5]!,
      line: 9,
      record: {
        uuid: 'r1',
        parentUuid: file.records[5]!.record.parentUuid,
        type: 'system',
        subtype: 'rewind',
        systemPayload: { promptId: pid(3) },
      },
    });
    file.records.push({ ...file.records[0]!, line: 10, record: { uuid: 'u10', parentUuid: 'r1', type: 'user', promptId: pid(4) } });
    expect(messages(file)).toEqual([]);
  });

  it('reports a record whose parent was never written, with the record as the slice', () => {
    const file = transcript([...turn(1), { type: 'user', promptId: pid(2), parentUuid: 'elsewhere' }]);
    const violations = check(runOf([], { transcripts: [file] }));
    expect(violations.map((v) => v.message)).toEqual([expect.stringContaining('names parent elsewhere, never written before it')]);
    expect(violations[0]!.slice).toEqual([file.records[3]]);
  });

  it('reports two records continuing one parent (two writers with the same tail)', () => {
    const file = transcript([...turn(1), { type: 'user', promptId: pid(2) }, { type: 'user', promptId: pid(3), parentUuid: 'u3' }]);
    expect(messages(file)).toEqual([expect.stringContaining('lines 4 and 5 both continue u3 (two writers)')]);
  });

  it('reports a second root', () => {
    const file = transcript([...turn(1), { type: 'user', promptId: pid(2), parentUuid: null }]);
    expect(messages(file)).toEqual([expect.stringContaining('a second root at line 4')]);
  });

  it('reports interleaved turns: a prompt resumed after another one began', () => {
    const file = transcript([
      { type: 'user', promptId: pid(1) },
      { type: 'user', promptId: pid(2) },
      { type: 'assistant', promptId: pid(1) },
    ]);
    expect(messages(file)).toEqual([
      expect.stringContaining(`prompt ${pid(1)} has a record at line 3 after its turn ended or another began`),
    ]);
  });

  it('reports a prompt run twice (two turn_result records)', () => {
    const file = transcript([...turn(1), { type: 'system', subtype: 'turn_result', promptId: pid(1) }]);
    expect(messages(file)).toEqual([expect.stringContaining('two turn_result records')]);
  });

  describe('read as the daemon reads it: a line a newer fence before it outranks is left out', () => {
    // n1 (fence 3) ran prompt 1; n2 claimed (marker 5) and went on from u3; n1, held between its fence check and
    // its append (pause-append), then wrote prompt 2's user record after n2's marker: the shape of SEED=2931 schedule 0.
    const staleFork = (staleFence: number | undefined) => [
      marker(3),
      { type: 'user', promptId: pid(1), fence: 3 },
      { type: 'system', subtype: 'turn_result', promptId: pid(1), fence: 3 },
      marker(5),
      { type: 'user', promptId: pid(2), parentUuid: 'u3', ...(staleFence !== undefined && { fence: staleFence }) },
      { type: 'user', promptId: pid(3), parentUuid: 'u4', fence: 5 },
      { type: 'system', subtype: 'turn_result', promptId: pid(3), fence: 5 },
    ];

    it("does not report a stale owner's line continuing the tail after the new owner's marker", () => {
      expect(onDisk(staleFork(3))).toEqual([]);
    });

    it('reports two lines continuing one parent under the same fence (two writers the fence did not tell apart)', () => {
      expect(onDisk(staleFork(5))).toEqual([expect.stringMatching(/^two-writers: .*lines 4 and 5 both continue u3/)]);
    });

    it('reports a line without a fence after a marker continuing the same parent (it outranks nothing, and is read)', () => {
      expect(onDisk(staleFork(undefined))).toEqual([expect.stringMatching(/^two-writers: .*lines 4 and 5 both continue u3/)]);
    });

    // n1 (fence 3) began prompt 1; n2 claimed (marker 5) and began prompt 2; n1's stale assistant record of prompt 1,
    // continuing n1's own last record, landed inside prompt 2's records.
    const staleInside = (staleFence: number) => [
      marker(3),
      { type: 'user', promptId: pid(1), fence: 3 },
      marker(5),
      { type: 'user', promptId: pid(2), fence: 5 },
      { type: 'assistant', promptId: pid(1), parentUuid: 'u2', fence: staleFence },
      { type: 'assistant', promptId: pid(2), parentUuid: 'u4', fence: 5 },
      { type: 'system', subtype: 'turn_result', promptId: pid(2), fence: 5 },
    ];

    it("does not report a stale owner's record landing inside another prompt's records", () => {
      expect(onDisk(staleInside(3))).toEqual([]);
    });

    it("reports a prompt's record inside another prompt's records under the same fence (interleaved)", () => {
      const reported = onDisk(staleInside(5));
      expect(reported).toContainEqual(
        expect.stringMatching(new RegExp(`^interleaved: .*prompt ${pid(1)} has a record at line 5 after its turn ended or another began`)),
      );
      expect(new Set(reported.map((line) => line.split(':')[0]))).toEqual(new Set(['two-writers', 'interleaved']));
    });

    it("reports an old owner's line that landed before the claim's marker, continuing the parent the marker continues", () => {
      // Not outranked (no higher fence before it), yet off the chain the new owner goes on from: a fork to show.
      const records = [marker(3), { type: 'user', promptId: pid(1), fence: 3 }, { type: 'assistant', promptId: pid(1), fence: 3 }];
      records.push(marker(5, 'u2'), { type: 'user', promptId: pid(2), fence: 5 });
      expect(onDisk(records)).toEqual([expect.stringMatching(/^two-writers: .*lines 3 and 4 both continue u2/)]);
    });

    it('reports a line whose parent only a stale owner wrote: what the reader walks must be whole', () => {
      const records = [...staleFork(3), { type: 'assistant', promptId: pid(2), parentUuid: 'u5', fence: 5 }];
      expect(onDisk(records)).toEqual([expect.stringMatching(/^unknown-parent: .*line 8 names parent u5, never written before it/)]);
    });
  });
});
