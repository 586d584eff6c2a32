import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Observable, Subject, concat, from } from 'rxjs';
import { Clock } from '../common/clock.js';
import type { SessionEvent, SessionEventType } from './session-event.js';

/** Events kept per session for `Last-Event-ID` replay. */
export const EVENT_RING_SIZE = 1_000;

interface SessionStream {
  nextId: number;
  ring: SessionEvent[];
  subject: Subject<SessionEvent>;
}

/**
 * Per-session event streams with monotonically increasing ids and a bounded
 * replay ring. `epoch` names this process's id space: ids restart with it, so
 * a client that sees a new epoch must not trust its `Last-Event-ID`.
 *
 * @publicApi
 */
@Injectable()
export class SessionEventBus {
  readonly epoch = randomUUID();
  private readonly streams = new Map<string, SessionStream>();

  constructor(private readonly clock: Clock) {}

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

  /** Ends every subscriber of a closed session. */
  close(sessionId: string): void {
    this.streams.get(sessionId)?.subject.complete();
    this.streams.delete(sessionId);
  }

  private stream(sessionId: string): SessionStream {
    let stream = this.streams.get(sessionId);
    if (!stream) {
      stream = { nextId: 1, ring: [], subject: new Subject() };
      this.streams.set(sessionId, stream);
    }
    return stream;
  }
}
