import type { RecordedIdempotency } from '../transcript/transcript-record.js';
import { idempotencyScope } from './idempotency-key.js';
import type { IdempotencyStore } from './idempotency-store.js';

const isText = (v: unknown) => typeof v === 'string' && v.length > 0;
const isTime = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

/** True for a recorded key this daemon wrote (a foreign or torn one is ignored). */
export function isRecordedIdempotency(value: unknown): value is RecordedIdempotency {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    isText(v.key) &&
    isText(v.fingerprint) &&
    isText(v.eventEpoch) &&
    isTime(v.lastEventId) &&
    isTime(v.admittedAt) &&
    (v.clientId === undefined || isText(v.clientId))
  );
}

/** A prompt admitted under a key, as the transcript's user record or the ledger's `in_flight` record keeps it. */
export interface KeyedAdmission {
  promptId: string;
  idempotency: RecordedIdempotency;
}

/**
 * Gives the store the first answers of a session's keyed admissions (oldest
 * first, so its age order holds): the `202` each was answered with. Returns
 * the client ids of the keys it took (a key already known is kept as it is).
 */
export function seedAdmissionKeys(store: IdempotencyStore, sessionId: string, admissions: readonly KeyedAdmission[]): Set<string> {
  const clientIds = new Set<string>();
  for (const { promptId, idempotency } of admissions) {
    const { key, fingerprint, clientId, lastEventId, eventEpoch, admittedAt } = idempotency;
    const body = { promptId, lastEventId, eventEpoch };
    if (store.seed(idempotencyScope.prompt(sessionId, clientId, key), fingerprint, { status: 202, body }, admittedAt) && clientId) {
      clientIds.add(clientId);
    }
  }
  return clientIds;
}
