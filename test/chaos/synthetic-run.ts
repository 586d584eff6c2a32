// Builders of synthetic chaos runs for the checker's specs: a history, a meta and a data dir view, in memory (or read
// back from a temporary data dir by `dataDirView`).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { readDataDirs } from '../../chaos/checker/data-dir.js';
import type { DataDirView, DataRecord, HistoryRecord, OpRecord, Run, RunMeta } from '../../chaos/checker/types.js';

export const SID = '11111111-1111-4111-8111-111111111111';
export const SID2 = '22222222-2222-4222-8222-222222222222';
export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
/** The runs' clock starts here; each spec places its records by offsets from it. */
export const T0 = 1_796_071_090_000;

export function pid(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

let ids = 0;
/** An op record; `at` is its start (ms after T0), it ends 10 ms later unless `end` says otherwise. */
export function op(at: number, fields: Partial<OpRecord> & { op: string }): OpRecord {
  ids += 1;
  return {
    type: 'op',
    id: `c1-${ids}`,
    client: 'c1',
    method: 'GET',
    via: 'front',
    sessionId: SID,
    promptId: null,
    idempotencyKey: null,
    bodyHash: null,
    status: 200,
    error: null,
    body: null,
    headers: {},
    ...fields,
    start: T0 + at,
    end: fields.end ?? T0 + at + 10,
  };
}

const node = (name?: string) => (name ? { headers: { 'x-turns-node': name } } : {});

/** A `POST /session/:id/prompt` answered 202 with `promptId`. */
export function prompt(
  at: number,
  promptId: string,
  options: { key?: string; bodyHash?: string; sessionId?: string; client?: string; node?: string } = {},
) {
  const sessionId = options.sessionId ?? SID;
  return op(at, {
    op: 'prompt',
    method: 'POST',
    path: `/session/${sessionId}/prompt`,
    sessionId,
    client: options.client ?? 'c1',
    idempotencyKey: options.key ?? null,
    bodyHash: options.bodyHash ?? 'hash-a',
    status: 202,
    body: { promptId, lastEventId: 1, eventEpoch: 'e1' },
    ...node(options.node),
  });
}

/** An exact read answered 200 with a status of `state` (terminal ones carry `endedAt`; overlay ones `queuedAt`). */
export function exact(
  at: number,
  promptId: string,
  state: string,
  options: { sessionId?: string; final?: boolean; node?: string; queuedAt?: boolean; extra?: Record<string, unknown> } = {},
) {
  const sessionId = options.sessionId ?? SID;
  const terminal = state === 'completed' || state === 'cancelled' || state === 'error';
  return op(at, {
    op: options.final ? 'final-exact' : 'exact',
    path: `/session/${sessionId}/turns/${promptId}`,
    sessionId,
    promptId,
    body: {
      sessionId,
      state,
      promptId,
      ...(options.queuedAt !== false && { queuedAt: T0 }),
      ...(terminal && { endedAt: T0 + at }),
      ...(state === 'error' && { error: { message: 'x', code: 'prompt_deadline_exceeded' } }),
      ...options.extra,
    },
    ...node(options.node),
  });
}

/** The exact route's 404 for a prompt. */
export function miss(at: number, promptId: string, sessionId = SID) {
  return op(at, {
    op: 'exact',
    path: `/session/${sessionId}/turns/${promptId}`,
    sessionId,
    promptId,
    status: 404,
    body: { error: 'Prompt not found', code: 'prompt_not_found', sessionId, promptId },
  });
}

/** A load (or create) answered 200 by `node`. */
export function claim(at: number, byNode: string, kind: 'load' | 'create' = 'load', sessionId = SID) {
  return op(at, {
    op: kind,
    method: 'POST',
    path: kind === 'load' ? `/session/${sessionId}/load` : '/session',
    sessionId: kind === 'load' ? sessionId : null,
    body: { sessionId },
    ...node(byNode),
  });
}

export function fault(at: number, kind: string, target: string): HistoryRecord {
  return { type: 'fault', t: T0 + at, fault: kind, target };
}

/** A delivery as the receiver got it, signed with `secret` (the run's, unless a spec forges one). */
export function delivery(
  at: number,
  promptId: string,
  options: { type?: string; answered?: number; secret?: string; body?: string; sessionId?: string; path?: string; id?: string } = {},
) {
  const body =
    options.body ??
    JSON.stringify({
      type: options.type ?? 'turn.completed',
      timestamp: T0 + at,
      data: { sessionId: options.sessionId ?? SID, promptId, state: 'completed' },
    });
  const id = options.id ?? `msg_${promptId}`;
  const sentAt = new Date(T0 + at);
  return {
    type: 'delivery',
    t: T0 + at,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(options.secret ?? SECRET).sign(id, sentAt, body),
    },
    raw: body,
    answered: options.answered ?? 200,
    ...(options.path !== undefined && { path: options.path }),
  } satisfies HistoryRecord;
}

export function ledgerLine(line: number, record: Record<string, unknown>, sessionId = SID): DataRecord {
  return { type: 'ledger', file: `/data/ws/chats/${sessionId}.ledger.jsonl`, line, record: { v: 1, ...record } };
}

/** Transcript records chained in order unless a record names its own parent. */
export function transcript(records: Array<Record<string, unknown>>, sessionId = SID): DataDirView['transcripts'][number] {
  let parent: string | null = null;
  return {
    file: `/data/ws/chats/${sessionId}.jsonl`,
    sessionId,
    unparsed: [],
    records: records.map((fields, index) => {
      const record: Record<string, unknown> = {
        uuid: `u${index + 1}`,
        parentUuid: parent,
        sessionId,
        timestamp: new Date(T0).toISOString(),
        type: 'assistant',
        ...fields,
      };
      parent = record.uuid as string;
      return { type: 'transcript' as const, file: `/data/ws/chats/${sessionId}.jsonl`, line: index + 1, record };
    }),
  };
}

/**
 * What the checker reads of a data dir holding these files of one workspace's `chats/` (name → JSON lines): written
 * to a temporary dir, read by `readDataDirs` as a run's are, then removed.
 */
export function dataDirView(files: Record<string, Array<Record<string, unknown>>>): DataDirView {
  const dataDir = mkdtempSync(join(tmpdir(), 'chaos-data-'));
  try {
    const chats = join(dataDir, 'ws-0123456789ab', 'chats');
    mkdirSync(chats, { recursive: true });
    for (const [name, lines] of Object.entries(files))
      writeFileSync(join(chats, name), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    return readDataDirs([dataDir]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A run of the given history, with a meta whose last fault healed at T0 + 100 s and a settle time of 10 s. */
export function runOf(
  history: HistoryRecord[],
  options: {
    meta?: Partial<RunMeta>;
    transcripts?: DataDirView['transcripts'];
    ledgers?: Record<string, DataRecord[]>;
    outbox?: DataRecord[];
  } = {},
): Run {
  return {
    meta: {
      seed: '1',
      index: 0,
      healedAt: T0 + 100_000,
      settleMs: 10_000,
      windowTurns: 64,
      webhookSecret: SECRET,
      receiver: 'http://127.0.0.1:1/hook',
      nodes: [],
      ...options.meta,
    },
    history,
    data: { transcripts: options.transcripts ?? [], ledgers: new Map(Object.entries(options.ledgers ?? {})), outbox: options.outbox ?? [] },
  };
}

/** A sample of the harness's fence sampler: the data dir's fence (`file`) or a lease Redis holds (`lease`, with its node). */
export function fence(at: number, source: 'file' | 'lease', value: number, options: { node?: string; sessionId?: string } = {}) {
  return {
    type: 'fence',
    t: T0 + at,
    source,
    sessionId: options.sessionId ?? SID,
    fence: value,
    ...(options.node && { node: options.node }),
  } satisfies HistoryRecord;
}

/** A node fault as the harness records it, with the sessions its node owned. */
export function nodeFault(at: number, kind: string, target: string, owned: string[] = [SID]): HistoryRecord {
  return { type: 'fault', t: T0 + at, fault: kind, target, owned };
}

/** One of the canary's ops after the fault at `faultAt`: a `current` read, or a load, answered `status` by `node`. */
export function canaryOp(faultAt: number, at: number, kind: 'current' | 'load', status: number | null, node?: string, sessionId = SID) {
  return op(at, {
    op: kind,
    client: 'canary',
    canary: T0 + faultAt,
    method: kind === 'load' ? 'POST' : 'GET',
    path: kind === 'load' ? `/session/${sessionId}/load` : `/session/${sessionId}/turns/current`,
    sessionId,
    status,
    body: status === 404 ? { error: 'Session not found', code: 'session_not_found', sessionId } : status === null ? null : { sessionId },
    ...(status === null && { error: 'timeout' }),
    ...(node ? { headers: { 'x-turns-node': node } } : {}),
  });
}
