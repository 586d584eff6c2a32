import { Inject, Injectable, Optional, type BeforeApplicationShutdown } from '@nestjs/common';
import { tooManyStreams } from '../errors/api-errors.js';
import { randomUUID } from 'node:crypto';
import { Observable, Subject, concat, defer, from, map, of } from 'rxjs';
import { Clock } from '../common/clock.js';
import type {
  SessionEvent,
  SessionEventData,
  SessionEventKind,
  SessionStreamMarker,
  SessionStreamMarkerData,
} from '../wire/session-event.js';
import { frameForReader, withPseudonyms } from './client-naming.js';
import { EVENT_OPTIONS, type EventOptions } from './events.settings.js';
import { planResume } from './resume-plan.js';

/** Events kept per session for `Last-Event-ID` replay. */
export const EVENT_RING_SIZE = 1_000;

interface SessionStream {
  /** Names this session's id space: a new one each time the session becomes live. */
  epoch: string;
  nextId: number;
  ring: SessionEvent[];
  subject: Subject<SessionEvent>;
  /** Open SSE streams of this session. */
  streams: number;
  /** When its last stream ended (epoch ms): the idle reaper counts from there. */
  streamEndedAt?: number;
}

/**
 * One frame a stream sends: an event (SSE `id` = its id) or a marker of the
 * stream's opening (SSE `id` = the position the client then stands at).
 *
 * @publicApi
 */
export interface StreamFrame {
  sseId: number;
  frame: SessionEvent | SessionStreamMarker;
}

/**
 * Per-session event streams with monotonically increasing ids and a bounded
 * replay ring. Each session has its own epoch, a new one whenever it becomes
 * live (after a restart or a close and load): ids restart with it, so a
 * client that sees a new epoch must not trust its `Last-Event-ID`.
 *
 * @publicApi
 */
@Injectable()
export class SessionEventBus implements BeforeApplicationShutdown {
  private readonly streams = new Map<string, SessionStream>();
  /** The clients each event names, by pseudonym: the one reader it names sees its own id. */
  private readonly named = new WeakMap<SessionEvent, ReadonlyMap<string, string>>();
  private openStreams = 0;

  constructor(
    private readonly clock: Clock,
    @Optional() @Inject(EVENT_OPTIONS) private readonly options?: EventOptions,
  ) {}

  publish<T extends SessionEventKind>(
    sessionId: string,
    type: T,
    fields: { promptId?: string; data: SessionEventData[T]; originatorClientId?: string },
  ): SessionEvent {
    const stream = this.stream(sessionId);
    const named = new Map<string, string>();
    const { originatorClientId } = withPseudonyms(sessionId, fields, named);
    // TypeScript cannot pair a generic `type` with its `data` inside the union; the signature does.
    const event = {
      id: stream.nextId++,
      v: 1,
      type,
      ...(fields.promptId !== undefined && { promptId: fields.promptId }),
      data: withPseudonyms(sessionId, fields.data, named),
      ...(originatorClientId !== undefined && { originatorClientId }),
      _meta: { serverTimestamp: this.clock.now() },
    } as SessionEvent;
    if (named.size > 0) this.named.set(event, named);
    stream.ring.push(event);
    if (stream.ring.length > EVENT_RING_SIZE) stream.ring.shift();
    stream.subject.next(event);
    return event;
  }

  /**
   * A frame as one reader receives it: every client it names by pseudonym,
   * but the reader (the client id its stream request carried) by its own id.
   */
  frameFor(frame: SessionEvent | SessionStreamMarker, readerClientId?: string): SessionEvent | SessionStreamMarker | string {
    return 'id' in frame ? frameForReader(frame, this.named.get(frame), readerClientId) : frame;
  }

  /** SSE streams open right now, across every session. */
  get openStreamCount(): number {
    return this.openStreams;
  }

  /** SSE streams of the session open right now, and when the last one ended: what the idle reaper reads. */
  streamsOf(sessionId: string): { open: number; endedAt?: number } {
    const stream = this.streams.get(sessionId);
    return { open: stream?.streams ?? 0, endedAt: stream?.streamEndedAt };
  }

  /** Id of the newest event (0 before the first). */
  lastEventId(sessionId: string): number {
    return this.stream(sessionId).nextId - 1;
  }

  /** When the session's newest event still in the ring was published (epoch ms). */
  newestEventAt(sessionId: string): number | undefined {
    return this.streams.get(sessionId)?.ring.at(-1)?._meta.serverTimestamp;
  }

  /** The epoch of the session's id space. */
  epochOf(sessionId: string): string {
    return this.stream(sessionId).epoch;
  }

  /** Events after `afterId` still in the ring, then live ones. */
  subscribe(sessionId: string, afterId?: number): Observable<SessionEvent> {
    const stream = this.stream(sessionId);
    const replay = afterId === undefined ? [] : stream.ring.filter((event) => event.id > afterId);
    return concat(from(replay), stream.subject.asObservable());
  }

  /**
   * A client's stream as docs/qwen-serve.md opens it, decided when subscribed (so no
   * event falls between the replay and the live part): a replay after
   * `lastEventId` closed by `replay_complete` (when it replayed anything), or `state_resync_required`
   * when the cursor is of another epoch or older than the ring; then live events.
   */
  resume(sessionId: string, lastEventId?: number, epoch?: string): Observable<StreamFrame> {
    return defer(() => {
      const stream = this.stream(sessionId);
      const newest = stream.nextId - 1;
      const earliestAvailableId = stream.ring[0]?.id ?? stream.nextId;
      const plan = planResume({ epoch: stream.epoch, lastEventId: newest, earliestAvailableId }, lastEventId, epoch);
      const live = stream.subject.pipe(map((event): StreamFrame => ({ sseId: event.id, frame: event })));
      if (plan.kind === 'live') return live;
      if (plan.kind === 'resync') {
        const { reason, lastDeliveredId } = plan;
        return concat(of(this.marker(newest, 'state_resync_required', { reason, lastDeliveredId, earliestAvailableId })), live);
      }
      const replay = stream.ring.filter((event) => event.id > plan.afterId);
      // Nothing to replay: the client is live at once, and no marker is sent.
      if (replay.length === 0) return live;
      const lastReplayedEventId = replay.at(-1)?.id ?? plan.afterId;
      const complete = this.marker(lastReplayedEventId, 'replay_complete', {
        lastReplayedEventId,
        lastEventId: newest,
        replayedCount: replay.length,
      });
      return concat(from(replay.map((event): StreamFrame => ({ sseId: event.id, frame: event }))), of(complete), live);
    });
  }

  /**
   * Counts one client stream against the per-session and per-daemon bounds
   * (`503 too_many_streams` beyond them); call the returned function once
   * when the stream ends.
   */
  reserveStream(sessionId: string): () => void {
    const stream = this.stream(sessionId);
    const { maxSseStreams = Infinity, maxSseStreamsPerSession = Infinity } = this.options ?? {};
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
      stream.streamEndedAt = this.clock.now();
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

  private marker<T extends keyof SessionStreamMarkerData>(sseId: number, type: T, data: SessionStreamMarkerData[T]): StreamFrame {
    return { sseId, frame: { v: 1, type, data, _meta: { serverTimestamp: this.clock.now() } } as SessionStreamMarker };
  }

  private stream(sessionId: string): SessionStream {
    let stream = this.streams.get(sessionId);
    if (!stream) {
      stream = { epoch: randomUUID(), nextId: 1, ring: [], subject: new Subject(), streams: 0 };
      this.streams.set(sessionId, stream);
    }
    return stream;
  }
}
