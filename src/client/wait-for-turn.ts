import type { SettledTurnStatus, TurnStatus } from '../turns/turn-status.js';
import type { Capabilities, WaitOptions } from './client-options.js';
import { TurnWaitTimeoutError, TurnWindowExpiredError } from './errors.js';
import { PermissionRequestWatch } from './permission-request-watch.js';
import { pollDelayMs } from './retry-policy.js';
import { sleep } from './sleep.js';
import { errorOf, route, type TurnsTransport } from './turns-transport.js';

const TERMINAL = new Set(['completed', 'cancelled', 'error']);
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** What a wait asks the daemon through: its transport, and its capabilities (remembered by the client). */
export interface WaitChannel {
  transport: TurnsTransport;
  capabilities: () => Promise<Capabilities>;
}

/** `TurnsClient.waitForTurn`: waits until settled, with `onPermissionRequest` told each request the agent waits on, once. */
export async function waitForTurn(
  channel: WaitChannel,
  sessionId: string,
  promptId: string,
  options: WaitOptions,
): Promise<SettledTurnStatus> {
  if (!options.onPermissionRequest) return waitUntilSettled(channel, sessionId, promptId, options);
  // A listener that fails stops the wait, held request included.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const watch = new PermissionRequestWatch(sessionId, promptId, options.onPermissionRequest, (error) => stop.abort(error));
  const onUpdate = (status: TurnStatus) => {
    options.onUpdate?.(status);
    watch.observe(status);
  };
  try {
    return await waitUntilSettled(channel, sessionId, promptId, { ...options, signal, onUpdate });
  } finally {
    watch.close();
  }
}

/** One held request per outcome where the daemon holds them, else polls with `If-None-Match` and `Retry-After` (docs/mounting.md#held-waits-for-turnsclient-and-the-command-line). */
async function waitUntilSettled(
  { transport, capabilities: capabilitiesOf }: WaitChannel,
  sessionId: string,
  promptId: string,
  options: WaitOptions,
): Promise<SettledTurnStatus> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const capabilities = await capabilitiesOf().catch(() => undefined);
  // The daemon's own bound, never a guess of ours: without one advertised, the loop polls (docs/decisions.md).
  const advertised = capabilities?.limits?.maxWaitMs;
  const maxWaitMs = typeof advertised === 'number' ? advertised : 0;
  const longPoll = (capabilities?.features.includes('session_turn_wait') ?? false) && maxWaitMs > 0;
  let last: TurnStatus | undefined;
  let etag: string | undefined;
  let unchanged = 0;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new TurnWaitTimeoutError(sessionId, promptId, last);
    // The first answer comes at once; each later one is held until the status changes (If-None-Match),
    // or — where no ETag reaches us (a proxy, a host's CORS) — until it settles.
    const waitMs = longPoll && last ? Math.max(0, Math.min(remaining, maxWaitMs)) : 0;
    const query = waitMs > 0 ? `?waitMs=${waitMs}` : '';
    const response = await transport.send('GET', route`/session/${sessionId}/turns/${promptId}` + query, undefined, {
      signal: options.signal,
      headers: etag ? { 'If-None-Match': etag } : {},
      heldMs: waitMs,
      // Too many held requests, a cluster failing over: waited out up to this wait's own deadline.
      unavailableUntil: deadline,
    });
    if (response.status === 304) {
      unchanged += 1;
    } else if (response.ok) {
      const status = (await response.json()) as TurnStatus;
      etag = response.headers.get('etag') ?? undefined;
      last = status;
      unchanged = 0;
      options.onUpdate?.(status);
      if (TERMINAL.has(status.state)) return status as SettledTurnStatus;
    } else if (response.status === 503 && response.headers.has('retry-after') && Date.now() >= deadline) {
      // Unavailable until the end: the wait ran out of time, as docs/waiting.md names it.
      throw new TurnWaitTimeoutError(sessionId, promptId, last);
    } else {
      const error = await errorOf(response);
      if (error.status === 404 && error.code === 'prompt_not_found' && last) throw new TurnWindowExpiredError(sessionId, promptId, last);
      throw error;
    }
    // Held without an ETag, a turn waiting on an approval is answered at once (docs/permissions.md): poll it instead.
    if (!longPoll || (!etag && last?.state === 'running' && last.pendingInteractions !== undefined)) {
      const delay = Math.min(pollDelayMs(response.headers.get('retry-after'), unchanged), Math.max(0, deadline - Date.now()));
      await sleep(delay, options.signal);
    }
  }
}
