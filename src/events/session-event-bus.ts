import { Injectable, Optional, type BeforeApplicationShutdown } from '@nestjs/common';
import { tooManyStreams } from '../common/api-errors.js';
import { RuntimeSettings } from '../runtime/runtime-settings.js';
import { randomUUID } from 'node:crypto';
import { Observable, Subject, concat, from } from 'rxjs';
import { Clock } from '../common/clock.js';
import type { SessionEvent, SessionEventType } from '../common/session-event.js';

/** Events kept per session for `Last-Event-ID` replay. */
export const EVENT_RING_SIZE = 1_000;

interface SessionStream {
  nextId: number;
  ring: SessionEvent[];
  subject: Subject<SessionEvent>;
  /** Open SSE streams of this session. */
  streams: number;
}

/**
 * Per-session event streams with monotonically increasing ids and a bounded
 * replay ring. `epoch` names this process's id space: ids restart with it, so
 * a client that sees a new epoch must not trust its `Last-Event-ID`.
 *
 * @publicApi
 */
@Injectable()
export class SessionEventBus implements BeforeApplicationShutdown {
  readonly epoch = randomUUID();
  private readonly streams = new Map<string, SessionStream>();
  private openStreams = 0;

  constructor(
    private readonly clock: Clock,
    @Optional() private readonly settings?: RuntimeSettings,
  ) {}

  publish(
    sessionId: string,
    type: SessionEventType,
    fields: { promptId?: string; data?: unknown; originatorClientId?: string } = {},
  ): SessionEvent {
    const stream = this.stream(sessionId);
    const event: SessionEvent = {
      id: stream.nextId++,
      v: 1,
      type,
      ...(fields.promptId !== undefined && { promptId: fields.promptId }),
      data: fields.data ?? {},
      ...(fields.originatorClientId !== undefined && { originatorClientId: fields.originatorClientId }),
      _meta: { serverTimestamp: this.clock.now() },
    };
    stream.ring.push(event);
    if (stream.ring.length > EVENT_RING_SIZE) stream.ring.shift();
    stream.subject.next(event);
    return event;
  }

  /** SSE streams open right now, across every session. */
  get openStreamCount(): number {
    return this.openStreams;
  }

  /** Id of the newest event (0 before the first). */
  lastEventId(sessionId: string): number {
    return this.stream(sessionId).nextId - 1;
  }

  /** Events after `afterId` still in the ring, then live ones. */
  subscribe(sessionId: string, afterId?: number): Observable<SessionEvent> {
    const stream = this.stream(sessionId);
    const replay = afterId === undefined ? [] : stream.ring.filter((event) => event.id > afterId);
    return concat(from(replay), stream.subject.asObservable());
  }

  /**
   * Counts one client stream against the per-session and per-daemon bounds
   * (`503 too_many_streams` beyond them); call the returned function once
   * when the stream ends.
   */
  reserveStream(sessionId: string): () => void {
    const stream = this.stream(sessionId);
    const { maxSseStreams = Infinity, maxSseStreamsPerSession = Infinity } = this.settings ?? {};
    if (this.openStreams >= maxSseStreams) throw tooManyStreams(maxSseStreams);
    if (stream.streams >= maxSseStreamsPerSession) throw tooManyStreams(maxSseStreamsPerSession);
    this.openStreams += 1;
    stream.streams += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.openStreams -= 1;
      stream.streams -= 1;
    };
    return release;
  }

  /** Shutdown ends every stream, so no open SSE response holds the server. */
  beforeApplicationShutdown(): void {
    for (const id of [...this.streams.keys()]) this.close(id);
  }

  /** Ends every subscriber of a closed session. */
  close(sessionId: string): void {
    this.streams.get(sessionId)?.subject.complete();
    this.streams.delete(sessionId);
  }

  private stream(sessionId: string): SessionStream {
    let stream = this.streams.get(sessionId);
    if (!stream) {
      stream = { nextId: 1, ring: [], subject: new Subject(), streams: 0 };
      this.streams.set(sessionId, stream);
    }
    return stream;
  }
}
