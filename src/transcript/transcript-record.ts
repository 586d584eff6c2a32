/** One part of a recorded message, in the shape qwen-code's recorder writes. */
export type MessagePart =
  | { text: string; thought?: true }
  | { functionCall: { id?: string; name: string; args?: unknown } }
  | { functionResponse: { id?: string; name: string; response: unknown } };

/** One JSONL line of a session transcript. */
export interface TranscriptRecord {
  uuid: string;
  parentUuid: string | null;
  sessionId: string;
  timestamp: string;
  type: 'user' | 'assistant' | 'tool_result' | 'system';
  subtype?: string;
  message?: { role: 'user' | 'model'; parts: MessagePart[] };
  systemPayload?: Record<string, unknown>;
  promptId?: string;
  /** On a prompt's `user` record: the `Idempotency-Key` it was admitted with (docs/idempotency.md). */
  idempotency?: RecordedIdempotency;
  /** Cluster mode: the fence of the lease its writer held (readers pass over a line a newer claim outranks). */
  fence?: number;
}

/**
 * The key a prompt was admitted with and its first answer (with the record's
 * `promptId`), so a replay after a `load` still finds it.
 */
export interface RecordedIdempotency {
  key: string;
  /** SHA-256 (hex) of the canonical JSON request body. */
  fingerprint: string;
  /** The client id it was admitted under (a key is scoped per client id). */
  clientId?: string;
  lastEventId: number;
  eventEpoch: string;
  /** Admission time, epoch ms: the key expires a TTL later. */
  admittedAt: number;
}

/** A record before the recorder chains it: no uuid, parent, session or time yet. */
export type TranscriptEntry = Omit<TranscriptRecord, 'uuid' | 'parentUuid' | 'sessionId' | 'timestamp'>;

export const TURN_RESULT_SUBTYPE = 'turn_result';
export const REWIND_SUBTYPE = 'rewind';
/** A claim's marker (cluster mode): `systemPayload.fence`, the fence the new owner's lines carry. */
export const FENCE_SUBTYPE = 'fence';

/** Parses one line; `undefined` for anything that is not a well-formed record (torn, foreign). */
export function parseRecord(line: string): TranscriptRecord | undefined {
  if (line.length === 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Partial<TranscriptRecord>;
  if (typeof record.uuid !== 'string') return undefined;
  if (record.parentUuid !== null && typeof record.parentUuid !== 'string') return undefined;
  if (typeof record.type !== 'string') return undefined;
  return record as TranscriptRecord;
}

export function isFenceMarker(record: TranscriptRecord): boolean {
  return record.type === 'system' && record.subtype === FENCE_SUBTYPE;
}

export function isTurnResult(record: TranscriptRecord): boolean {
  return record.type === 'system' && record.subtype === TURN_RESULT_SUBTYPE;
}
