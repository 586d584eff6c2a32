/** Where a batch goes: pino's own destination (sonic-boom). */
interface LineSink {
  write(chunk: string): unknown;
}

/**
 * Whole log lines held in memory and handed on 64 KiB at a time (or at
 * {@link flush}). sonic-boom measures its pending buffer on every write, which
 * cost a Fastify poll ~2.7 µs per request line; and each of its writes is a
 * trip through libuv's threadpool. With 64 KiB rather than 8 KiB batches, a
 * logging Fastify daemon served 0.87× rather than 0.78× of a silent one beside it.
 */
export class LineBatch {
  private lines: string[] = [];
  private length = 0;

  constructor(
    private readonly sink: LineSink,
    private readonly size = 65_536,
  ) {}

  /** Takes one or more whole lines (each ending in `\n`). */
  write(lines: string): boolean {
    this.lines.push(lines);
    this.length += lines.length;
    if (this.length >= this.size) this.flush();
    return true;
  }

  /** Hands on what is held, in the order it came. */
  flush(): void {
    if (this.lines.length === 0) return;
    const chunk = this.lines.join('');
    this.lines = [];
    this.length = 0;
    this.sink.write(chunk);
  }
}
