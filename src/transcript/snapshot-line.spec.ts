import { SnapshotLine } from './snapshot-line.js';

const line = (text: string) => {
  const bytes = Buffer.from(`xx${text}yy`);
  return new SnapshotLine(bytes, 2, bytes.length - 2, text.length + 1, 0);
};

describe('SnapshotLine', () => {
  const ours = '{"uuid":"u2","parentUuid":"u1","sessionId":"s","timestamp":"t","type":"user","message":{"type":"system"}}';

  it('reads chain links and the top-level type from our layout without a parse', () => {
    const l = line(ours);
    expect(l.links()).toEqual({ uuid: 'u2', parentUuid: 'u1' });
    expect(l.headType()).toBe('user');
    expect(line('{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"t","type":"system","subtype":"turn_result"}').links()).toEqual(
      {
        uuid: 'u1',
        parentUuid: null,
      },
    );
  });

  it('parses any other layout whole, and then claims no head type', () => {
    const foreign = line('{"type":"system","parentUuid":"u1","uuid":"u2"}');
    expect(foreign.links()).toEqual({ uuid: 'u2', parentUuid: 'u1' });
    expect(foreign.headType()).toBeUndefined();
    const escaped = line('{"uuid":"a\\"b","parentUuid":null,"type":"user"}');
    expect(escaped.links()).toEqual({ uuid: 'a"b', parentUuid: null });
    expect(escaped.headType()).toBeUndefined();
  });

  it('gives the parent only of the record it is asked about, for our layout and any other', () => {
    expect(line(ours).parentIfUuid('u2')).toBe('u1');
    expect(line(ours).parentIfUuid(undefined)).toBe('u1');
    expect(line(ours).parentIfUuid('u3')).toBeUndefined();
    expect(line(ours).parentIfUuid('u')).toBeUndefined();
    expect(line(ours).parentIfUuid('u22')).toBeUndefined();
    expect(line(ours).parentIfUuid(null)).toBeUndefined();
    const root = line('{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user"}');
    expect(root.parentIfUuid('u1')).toBeNull();
    const foreign = line('{"type":"system","parentUuid":"u1","uuid":"u2"}');
    expect(foreign.parentIfUuid('u2')).toBe('u1');
    expect(foreign.parentIfUuid('u1')).toBeUndefined();
    const escaped = line('{"uuid":"a\\"b","parentUuid":null,"type":"user"}');
    expect(escaped.parentIfUuid('a"b')).toBeNull();
    expect(line('{"uuid":"u3","parentUuid":"u2","sessionId":"s"').parentIfUuid('u3')).toBeUndefined();
  });

  it('keeps a torn line off the chain, and searches only its own bytes', () => {
    expect(line('{"uuid":"u3","parentUuid":"u2","sessionId":"s"').links()).toBeUndefined();
    expect(line(ours).includes(Buffer.from('yy'))).toBe(false);
    expect(line(ours).includes(Buffer.from('"message"'))).toBe(true);
  });
});
