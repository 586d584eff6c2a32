import { jsonTextBytes, SnapshotLine } from './snapshot-line.js';

const line = (text: string) => {
  const bytes = Buffer.from(`xx${text}yy`);
  return new SnapshotLine(bytes, 2, bytes.length - 2, text.length + 1, 0);
};

describe('SnapshotLine', () => {
  const ours = '{"uuid":"u2","parentUuid":"u1","sessionId":"s","timestamp":"t","type":"user","message":{"type":"system"}}';

  it('reads chain links from our head, a root included', () => {
    expect(line(ours).links()).toEqual({ uuid: 'u2', parentUuid: 'u1' });
    expect(line('{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"t","type":"system"}').links()).toEqual({
      uuid: 'u1',
      parentUuid: null,
    });
    expect(line('{"uuid":"ü2","parentUuid":"ü1","type":"user"}').links()).toEqual({ uuid: 'ü2', parentUuid: 'ü1' });
  });

  it('parses any other layout whole: another key order, an escape in the head', () => {
    expect(line('{"type":"system","parentUuid":"u1","uuid":"u2"}').links()).toEqual({ uuid: 'u2', parentUuid: 'u1' });
    expect(line('{"uuid":"a\\"b","parentUuid":null,"type":"user"}').links()).toEqual({ uuid: 'a"b', parentUuid: null });
    expect(line('{"uuid":"u\\u0032","parentUuid":"u1","type":"user"}').links()).toEqual({ uuid: 'u2', parentUuid: 'u1' });
    const long = 'i'.repeat(400);
    expect(line(`{"uuid":"${long}","parentUuid":"${long}","type":"user"}`).links()).toEqual({ uuid: long, parentUuid: long });
  });

  it('keeps a torn line off the chain, and searches only its own bytes', () => {
    expect(line('{"uuid":"u3","parentUuid":"u2","sessionId":"s"').links()).toBeUndefined();
    expect(line('not json').links()).toBeUndefined();
    expect(line(ours).includes(Buffer.from('yy'))).toBe(false);
    expect(line(ours).includes(Buffer.from('"message"'))).toBe(true);
    expect(line(ours).record?.type).toBe('user');
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
