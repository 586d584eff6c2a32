import type { TranscriptAppender } from './transcript-appender.js';

/** A live session's transcript: where it goes, the record appends chain after, and its queue of appends (one at a time). */
export class OpenTranscript {
  /** Tail of the serialized append chain. */
  tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly appender: TranscriptAppender,
    public lastUuid: string | null,
  ) {}

  /** Runs `write` once every write queued before it is done. */
  queue<T>(write: () => Promise<T>): Promise<T> {
    const next = this.tail.then(write);
    this.tail = next;
    return next;
  }

  /** Closes the file once the writes queued so far are done (a later one sees the transcript closed). */
  closeWhenWritten(): void {
    void this.tail.then(() => this.appender.close());
  }
}
