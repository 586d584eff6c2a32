import { DAEMON_SETTINGS, flagOf } from '../daemon/daemon-settings.js';
import { AddressPolicy } from './address-policy.js';
import type { HostResolver } from './host-resolver.js';
import { checkWebhookUrl, ForbiddenWebhookUrl } from './webhook-url-guard.js';

const resolver: HostResolver = (host) =>
  Promise.resolve(
    host === 'receiver.internal' ? [{ address: '10.1.2.3', family: 4 as const }] : [{ address: '93.184.215.14', family: 4 as const }],
  );

async function refusal(url: string, policy = new AddressPolicy()): Promise<ForbiddenWebhookUrl> {
  const error: unknown = await checkWebhookUrl(url, policy, resolver).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ForbiddenWebhookUrl);
  return error as ForbiddenWebhookUrl;
}

describe('the SSRF refusal', () => {
  it('names the setting that lets a loopback or private receiver through, as the daemon spells it', async () => {
    const setting = DAEMON_SETTINGS.webhookAllow;
    for (const url of ['http://127.0.0.1:9/hook', 'http://[::1]:9/hook', 'http://receiver.internal/hook']) {
      const { message } = await refusal(url);
      expect(message).toContain(`TURNS_${setting.name}`);
      expect(message).toContain(flagOf(setting));
      expect(message).toContain('webhooks.allow');
      // The 400 body carries it as the reason.
      expect((await refusal(url)).toApiError().getResponse()).toMatchObject({
        code: 'webhook_url_forbidden',
        reason: message,
        error: `The webhook URL was refused: ${message}`,
      });
    }
  });

  it('lets the same receivers through once they are listed, and public hosts without', async () => {
    const allowed = new AddressPolicy(['127.0.0.0/8', 'receiver.internal']);
    await expect(checkWebhookUrl('http://127.0.0.1:9/hook', allowed, resolver)).resolves.toMatchObject({
      address: { address: '127.0.0.1' },
    });
    await expect(checkWebhookUrl('http://receiver.internal/hook', allowed, resolver)).resolves.toMatchObject({
      address: { address: '10.1.2.3' },
    });
    await expect(checkWebhookUrl('https://example.com/hook', new AddressPolicy(), resolver)).resolves.toBeDefined();
  });

  it('does not point at the allow list for a URL no setting can fix', async () => {
    expect((await refusal('ftp://example.com/hook')).message).not.toContain('TURNS_WEBHOOK_ALLOW');
  });
});
