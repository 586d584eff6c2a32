const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The uuid a backward walk of the active chain looks for next, held as the
 * UTF-8 bytes where it was read (a parent link in a read buffer, which is
 * never reused) or in a buffer of its own: following a link compares bytes in
 * place, so a walk through thousands of records makes no string per record.
 * Before the chain's head is found any record matches; past its root none does.
 */
export class ExpectedUuid {
  private source: Buffer = Buffer.alloc(0);
  private start = 0;
  private length = 0;
  private state: 'any' | 'uuid' | 'past-root' = 'any';

  /** From a cursor's `expect`: `undefined` = any record (the head), `null` = past the root. */
  static of(value: string | null | undefined): ExpectedUuid {
    const expected = new ExpectedUuid();
    if (value !== undefined) expected.setString(value);
    return expected;
  }

  /** True once the root was passed: no record is on the chain any more. */
  get pastRoot(): boolean {
    return this.state === 'past-root';
  }

  /** True before the chain's head was found: any record is the one expected. */
  get any(): boolean {
    return this.state === 'any';
  }

  /** The expected uuid's length in bytes (when it is one). */
  get byteLength(): number {
    return this.length;
  }

  /**
   * How the plain JSON string starting at `bytes[at]` compares with the
   * expected uuid: `true` when it is that uuid (its closing quote follows),
   * `false` when it is not, `undefined` when only a parse can tell (an escape).
   */
  matchesStringAt(bytes: Buffer, at: number, end: number): boolean | undefined {
    if (this.state !== 'uuid') return this.state === 'any' ? undefined : false;
    const { source, start, length } = this;
    if (end - at <= length) return false;
    for (let i = 0; i < length; i += 1) {
      const byte = bytes[at + i];
      if (byte !== source[start + i]) return byte === BACKSLASH ? undefined : false;
    }
    const next = bytes[at + length];
    return next === QUOTE ? true : next === BACKSLASH ? undefined : false;
  }

  matchesString(uuid: string): boolean {
    if (this.state !== 'uuid') return this.state === 'any';
    return Buffer.byteLength(uuid) === this.length && this.text() === uuid;
  }

  /** Expects the uuid `source[start, end)` next: a parent read in place, not copied. */
  set(source: Buffer, start: number, end: number): void {
    this.source = source;
    this.start = start;
    this.length = end - start;
    this.state = 'uuid';
  }

  /** Expects `uuid` next; `null` (a root's parent) means nothing more is on the chain. */
  setString(uuid: string | null): void {
    if (uuid === null) {
      this.state = 'past-root';
      return;
    }
    const bytes = Buffer.from(uuid, 'utf8');
    this.set(bytes, 0, bytes.length);
  }

  /** What a cursor carries: the uuid as a string, `undefined` before the head, `null` past the root. */
  value(): string | null | undefined {
    if (this.state === 'any') return undefined;
    return this.state === 'past-root' ? null : this.text();
  }

  private text(): string {
    return this.source.toString('utf8', this.start, this.start + this.length);
  }
}
