import { ExpectedUuid } from './expected-uuid.js';
import { jsonTextBytes, SnapshotLine } from './snapshot-line.js';

const line = (text: string) => {
  const bytes = Buffer.from(`xx${text}yy`);
  return new SnapshotLine(bytes, 2, bytes.length - 2, text.length + 1, 0);
};

describe('SnapshotLine', () => {
  const ours = '{"uuid":"u2","parentUuid":"u1","sessionId":"s","timestamp":"t","type":"user","message":{"type":"system"}}';

  it('reads chain links from our layout without a parse', () => {
    const l = line(ours);
    expect(l.links()).toEqual({ uuid: 'u2', parentUuid: 'u1' });
    expect(line('{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"t","type":"system","subtype":"turn_result"}').links()).toEqual(
      {
        uuid: 'u1',
        parentUuid: null,
      },
    );
  });

  it('parses any other layout whole', () => {
    const foreign = line('{"type":"system","parentUuid":"u1","uuid":"u2"}');
    expect(foreign.links()).toEqual({ uuid: 'u2', parentUuid: 'u1' });
    const escaped = line('{"uuid":"a\\"b","parentUuid":null,"type":"user"}');
    expect(escaped.links()).toEqual({ uuid: 'a"b', parentUuid: null });
  });

  /** The uuid expected after the line, or 'off' when the line is not the record expected. */
  const follows = (text: string, expect: string | null | undefined) => {
    const expected = ExpectedUuid.of(expect);
    return line(text).follow(expected) ? expected.value() : 'off';
  };

  it('follows the chain only through the record it expects, for our layout and any other', () => {
    expect(follows(ours, 'u2')).toBe('u1');
    expect(follows(ours, undefined)).toBe('u1');
    expect(follows(ours, 'u3')).toBe('off');
    expect(follows(ours, 'u')).toBe('off');
    expect(follows(ours, 'u22')).toBe('off');
    expect(follows(ours, null)).toBe('off');
    expect(follows('{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user"}', 'u1')).toBeNull();
    const foreign = '{"type":"system","parentUuid":"u1","uuid":"u2"}';
    expect(follows(foreign, 'u2')).toBe('u1');
    expect(follows(foreign, 'u1')).toBe('off');
    expect(follows('{"uuid":"a\\"b","parentUuid":null,"type":"user"}', 'a"b')).toBeNull();
    expect(follows('{"uuid":"u3","parentUuid":"u2","sessionId":"s"', 'u3')).toBe('off');
  });

  it('decides on the decoded uuid: an escape in our head position is parsed, non-ASCII ids compare as UTF-8', () => {
    expect(follows('{"uuid":"u\\u0032","parentUuid":"u1","type":"user"}', 'u2')).toBe('u1');
    expect(follows('{"uuid":"ü2","parentUuid":"ü1","sessionId":"s","timestamp":"t","type":"user"}', 'ü2')).toBe('ü1');
    expect(follows('{"uuid":"ü2","parentUuid":"ü1","sessionId":"s","timestamp":"t","type":"user"}', 'u2')).toBe('off');
  });

  it('walks a chain line by line, skipping a branch that is not on it', () => {
    const expected = ExpectedUuid.of(undefined);
    const lines = [
      '{"uuid":"c","parentUuid":"a","sessionId":"s","timestamp":"t","type":"user"}',
      '{"uuid":"b","parentUuid":"a","sessionId":"s","timestamp":"t","type":"user"}',
      '{"uuid":"a","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user"}',
    ];
    expect(lines.map((text) => line(text).follow(expected))).toEqual([true, false, true]);
    expect(expected.pastRoot).toBe(true);
  });

  it('keeps a torn line off the chain, and searches only its own bytes', () => {
    expect(line('{"uuid":"u3","parentUuid":"u2","sessionId":"s"').links()).toBeUndefined();
    expect(line(ours).includes(Buffer.from('yy'))).toBe(false);
    expect(line(ours).includes(Buffer.from('"message"'))).toBe(true);
  });

  it('has no data for an oversized line that was skipped', () => {
    const skipped = new SnapshotLine(undefined, 0, 0, 10_000, 5);
    expect(skipped.links()).toBeUndefined();
    expect(skipped.record).toBeUndefined();
    expect(skipped.includes(Buffer.from('x'))).toBe(false);
  });

  it('finds text as it stands inside a JSON string', () => {
    expect(jsonTextBytes('a"b').toString()).toBe('a\\"b');
    expect(line('{"uuid":"u","parentUuid":null,"promptId":"a\\"b"}').includes(jsonTextBytes('a"b'))).toBe(true);
  });
});
