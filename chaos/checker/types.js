// @ts-check
// The shapes of a chaos run as the harness records it (CHAOS-HISTORY.md) and of the checker's answer. JSDoc only.

/**
 * An HTTP operation a client made.
 * @typedef {object} OpRecord
 * @property {'op'} type
 * @property {string} [id]
 * @property {string} [client]
 * @property {string} op create | load | prompt | exact | current | list | wait | final-exact | final-list | …
 * @property {string} [method]
 * @property {string} [path]
 * @property {string} [via]
 * @property {string | null} [sessionId]
 * @property {string | null} [promptId]
 * @property {string | null} [idempotencyKey]
 * @property {string | null} [bodyHash]
 * @property {number} start
 * @property {number} end
 * @property {number | null} status
 * @property {string | null} [error]
 * @property {any} [body]
 * @property {Record<string, string>} [headers]
 * @property {number} [canary] the canary's ops: the time of the fault they follow
 */

/**
 * Any line of history.jsonl: an op, an SSE event, a fault, a delivery or a crash (all but ops carry `t`).
 * @typedef {OpRecord | { type: string, t: number, [key: string]: any }} HistoryRecord
 */

/**
 * @typedef {object} RunMeta
 * @property {string} [seed]
 * @property {number} [index]
 * @property {number} [startedAt]
 * @property {number} [endedAt]
 * @property {number} [healedAt]
 * @property {number} [settleMs]
 * @property {number} [leaseMs]
 * @property {number} [deadlineMs]
 * @property {number} [windowTurns]
 * @property {string} [webhookSecret]
 * @property {{ name: string, url?: string, dataDir?: string }[]} [nodes]
 * @property {string} [front]
 * @property {string} [receiver]
 * @property {boolean} [operatorWebhook] true: the operator's endpoint (`TURNS_WEBHOOK_URL`) gets every session's
 *   terminals, beside any subscription
 * @property {'all' | 'some'} [finalLoads] whether the final phase loaded every session
 * @property {string[]} [unloaded] the sessions the final phase left alone
 */

/**
 * One parsed line of a file in a data dir, with where it came from (so a slice can name it).
 * @typedef {{ type: 'transcript' | 'ledger' | 'outbox', file: string, line: number, record: any }} DataRecord
 */

/**
 * What the data dirs hold after the run.
 * @typedef {object} DataDirView
 * @property {{ file: string, sessionId: string, records: DataRecord[], unparsed: number[] }[]} transcripts each one's
 *   chain records (fence markers too) in file order
 * @property {Map<string, DataRecord[]>} ledgers ledger records by session id (every data dir's, in file order)
 * @property {DataRecord[]} outbox deliveries still pending
 * @property {{ transcript: number, ledger: number }} [outranked] the stale owners' lines left out of both, as the
 *   daemon's readers leave them out (a newer claim's fence before them outranks theirs)
 */

/**
 * A run to check: pure data, so the properties are pure functions of it.
 * @typedef {object} Run
 * @property {string} [dir]
 * @property {RunMeta} meta
 * @property {HistoryRecord[]} history
 * @property {DataDirView} data
 */

/**
 * A violation; `kind` names what broke, stably (no time, no id): the property and it are the signature CI gates on.
 * @typedef {{ kind?: string, signature?: string, message: string, slice: any[] }} Violation
 * @typedef {{ name: string, description: string, violations: Violation[] }} PropertyResult
 */

export {};
