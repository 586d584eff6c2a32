import type { PermissionOption, RequestPermissionResponse } from '@agentclientprotocol/sdk';

/** A daemon has nobody to ask: it allows once where the agent offers that (else always), and declines otherwise. */
export function headlessPermission(options: readonly Pick<PermissionOption, 'kind' | 'optionId'>[]): RequestPermissionResponse {
  const allow = options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind === 'allow_always');
  return { outcome: allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' } };
}
