/** One dispatched server-sent event. */
export interface ServerSentEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * An incremental `text/event-stream` parser (the WHATWG rules: `data` lines
 * joined by newlines, `event`, `id` without NUL, `retry` as digits, comments
 * and unknown fields ignored; a blank line dispatches). Feed it decoded text
 * in any chunks.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private hasData = false;
  /** The last event ID buffer: an `id` line sets it, a dispatch makes it the last event ID. */
  private idBuffer: string;
  private dispatchedId: string;

  /** `lastEventId`: the one a reconnecting stream resumes from, which carries on until the server names another. */
  constructor(
    private readonly onEvent: (event: ServerSentEvent) => void,
    private readonly onRetry: (ms: number) => void = () => undefined,
    lastEventId = '',
  ) {
    this.idBuffer = this.dispatchedId = lastEventId;
  }

  /**
   * The id to resume from (`Last-Event-ID`; empty: none): set when a frame is
   * dispatched, so a stream cut after an `id` line, before its blank line,
   * resumes from the frame before it.
   */
  get lastEventId(): string {
    return this.dispatchedId;
  }

  push(text: string): void {
    this.buffer += text;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) return;
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) return;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.hasData = true;
        return;
      case 'event':
        this.event = value;
        return;
      case 'id':
        if (!value.includes('\u0000')) this.idBuffer = value;
        return;
      case 'retry':
        if (/^\d+$/.test(value)) this.onRetry(Number(value));
        return;
      default:
        return;
    }
  }

  private dispatch(): void {
    // Also a frame without data sets the last event ID (an empty `id` clears it).
    this.dispatchedId = this.idBuffer;
    if (this.hasData) this.onEvent({ id: this.idBuffer || undefined, event: this.event || 'message', data: this.data.join('\n') });
    this.data = [];
    this.event = '';
    this.hasData = false;
  }
}
