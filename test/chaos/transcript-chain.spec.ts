import { check } from '../../chaos/checker/transcript-chain.js';
import { pid, runOf, transcript } from './synthetic-run.js';

const turn = (n: number) => [
  { type: 'user', promptId: pid(n) },
  { type: 'assistant', promptId: pid(n) },
  { type: 'system', subtype: 'turn_result', promptId: pid(n) },
];
const messages = (file: ReturnType<typeof transcript>) => check(runOf([], { transcripts: [file] })).map((v) => v.message);

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
});
