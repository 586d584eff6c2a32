import { parseRecord, type TranscriptRecord } from './transcript-record.js';

/** Where a record sits on its chain. */
export interface ChainLinks {
  uuid: string;
  parentUuid: string | null;
}

/**
 * The head our recorder writes first on every line; read from the line's
 * first bytes, so following the chain parses no record.
 */
const HEAD = /^\{"uuid":"([^"\\]+)","parentUuid":(?:null|"([^"\\]+)")/;
/** Bytes decoded for the head: two ids of up to 256 bytes and the keys (longer ones are parsed). */
const HEAD_BYTES = 560;
const CLOSE = 0x7d;

/** `text` as it stands inside a JSON string, as bytes: a line without them does not hold it. */
export function jsonTextBytes(text: string): Buffer {
  return Buffer.from(JSON.stringify(text).slice(1, -1));
}

/**
 * One line of a transcript snapshot, `[begin, end)` of the buffer it was read
 * into: its chain links from our head, and the whole record parsed only when
 * asked (a line in another recorder's layout is parsed for its links too).
 */
export class SnapshotLine {
  private parsed?: TranscriptRecord | null;

  constructor(
    /** The buffer holding the line; `undefined` for an oversized line that was skipped. */
    private readonly chunk: Buffer | undefined,
    private readonly begin: number,
    private readonly end: number,
    /** Size in the file, newline included. */
    readonly bytes: number,
    /** Byte offset where the line starts; the next backward read ends here. */
    readonly start: number,
  ) {}

  /** The record, if the line parses as one (memoized). */
  get record(): TranscriptRecord | undefined {
    if (this.parsed === undefined) {
      this.parsed = this.chunk ? (parseRecord(this.chunk.toString('utf8', this.begin, this.end).trim()) ?? null) : null;
    }
    return this.parsed ?? undefined;
  }

  /**
   * The uuid and parentUuid: from our head when the line has it and ends like
   * a whole record (a torn line is never on the chain), else from the parsed record.
   */
  links(): ChainLinks | undefined {
    if (!this.chunk) return undefined;
    if (this.chunk[this.end - 1] === CLOSE) {
      const head = HEAD.exec(this.chunk.toString('utf8', this.begin, Math.min(this.end, this.begin + HEAD_BYTES)));
      if (head) return { uuid: head[1]!, parentUuid: head[2] ?? null };
    }
    const record = this.record;
    return record && { uuid: record.uuid, parentUuid: record.parentUuid };
  }

  /** True when the raw line contains `needle` (a cheap test before a parse). */
  includes(needle: Buffer): boolean {
    return this.chunk !== undefined && this.chunk.subarray(this.begin, this.end).includes(needle);
  }
}
