import type { PendingInteraction, PermissionOutcome } from '../client/index.js';

/** What a user of the command line said about a request. */
export type PermissionVerdict = 'allow' | 'deny';

/**
 * The outcome that says `verdict` to `request`: allow → its `allow_once`
 * option, never a wider grant (none offered: undefined, the request is left
 * for a client that can choose); deny → its `reject_once`, else its
 * `reject_always` option, else `cancelled`, which refuses as well.
 */
export function outcomeFor(request: PendingInteraction, verdict: PermissionVerdict): PermissionOutcome | undefined {
  const option = (kind: string) => request.options.find((candidate) => candidate.kind === kind);
  if (verdict === 'allow') {
    const allow = option('allow_once');
    return allow && { outcome: 'selected', optionId: allow.optionId };
  }
  const reject = option('reject_once') ?? option('reject_always');
  return reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' };
}
