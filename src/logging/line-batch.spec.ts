import { LineBatch } from './line-batch.js';

describe('LineBatch', () => {
  const sink = () => {
    const chunks: string[] = [];
    return { chunks, write: (chunk: string) => chunks.push(chunk) };
  };

  it('holds lines until they reach its size, then hands them on as one chunk, in order', () => {
    const out = sink();
    const batch = new LineBatch(out, 10);
    batch.write('a\n');
    batch.write('bb\n');
    expect(out.chunks).toEqual([]);
    batch.write('cccccc\n');
    expect(out.chunks).toEqual(['a\nbb\ncccccc\n']);
    batch.write('d\n');
    expect(out.chunks).toEqual(['a\nbb\ncccccc\n']);
  });

  it('hands on what it holds when flushed, and nothing when it holds nothing', () => {
    const out = sink();
    const batch = new LineBatch(out, 1_000);
    batch.flush();
    expect(out.chunks).toEqual([]);
    batch.write('x\n');
    batch.write('y\n');
    batch.flush();
    batch.flush();
    expect(out.chunks).toEqual(['x\ny\n']);
  });
});
