import type { PendingInteraction, PermissionOutcome } from '../client/index.js';
import { refusalOption } from '../permissions/permission-policy.js';

/** What a user of the command line said about a request. */
export type PermissionVerdict = 'allow' | 'deny';

/**
 * The outcome that says `verdict` to `request`: allow → its `allow_once`
 * option, never a wider grant (none offered: undefined, the request is left
 * for a client that can choose); deny → the option the `deny` policy picks
 * ({@link refusalOption}), else `cancelled`, which refuses as well.
 */
export function outcomeFor(request: PendingInteraction, verdict: PermissionVerdict): PermissionOutcome | undefined {
  const option = (kind: string) => request.options.find((candidate) => candidate.kind === kind);
  if (verdict === 'allow') {
    const allow = option('allow_once');
    return allow && { outcome: 'selected', optionId: allow.optionId };
  }
  const reject = refusalOption(request.options);
  return reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' };
}
