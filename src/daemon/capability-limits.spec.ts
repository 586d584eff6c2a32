import { TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import { ADVERTISED_LIMITS, capabilityLimits } from './capability-limits.js';
import { loadDaemonConfig } from './daemon-config.js';
import { LimitsDto } from './system.dto.js';

const RUNTIME = { overlaySize: TERMINAL_OVERLAY_SIZE, scanLimits: TRANSCRIPT_SCAN_LIMITS };

// The wire contract of /capabilities.limits (unchanged by where the values come from).
const ALWAYS = [
  'maxPendingPromptsPerSession',
  'promptTextMaxLength',
  'resultTextMaxLength',
  'terminalOverlaySize',
  'transcriptScanMaxPages',
  'transcriptScanPageRecords',
  'transcriptScanPageBytes',
  'maxSessions',
  'sessionIdleTimeoutMs',
  'maxSseStreams',
  'maxSseStreamsPerSession',
  'maxPromptChars',
  'maxTranscriptBytes',
  'maxWaitMs',
  'maxWaiters',
  'maxBodyBytes',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'maxIdempotencyKeys',
  'idempotencyTtlMs',
  'maxWebhooksPerSession',
  'webhookTimeoutMs',
  'webhookMaxAttempts',
  'webhookRetryBaseMs',
].sort();

describe('capabilityLimits', () => {
  it('reports every advertised setting in force, and the fixed limits', () => {
    const limits = capabilityLimits(loadDaemonConfig({ TURNS_MAX_WAIT_MS: '1234' }, [], '/srv'), { ...RUNTIME, overlaySize: 7 });
    expect(Object.keys(limits).sort()).toEqual(ALWAYS);
    expect(limits).toMatchObject({ maxWaitMs: 1234, maxWaiters: 10_000, maxPendingPromptsPerSession: 5, terminalOverlaySize: 7 });
  });

  it('sends a setting without a default only when it is set', () => {
    const limits = capabilityLimits(loadDaemonConfig({ TURNS_PROMPT_DEADLINE_MS: '5000' }, [], '/srv'), RUNTIME);
    expect(limits.promptDeadlineMs).toBe(5000);
  });

  it('describes the same fields in the schema, the optional one optional', () => {
    expect(ADVERTISED_LIMITS.map(({ field }) => field).sort()).toEqual([...ALWAYS, 'promptDeadlineMs', 'promptMaxTokens'].sort());
    expect(ADVERTISED_LIMITS.filter(({ required }) => !required).map(({ field }) => field)).toEqual([
      'promptDeadlineMs',
      'promptMaxTokens',
    ]);
    expect(ADVERTISED_LIMITS.find(({ field }) => field === 'maxWaitMs')).toMatchObject({ example: 30_000 });
  });

  it('gives LimitsDto a schema property of each field', () => {
    const properties = Reflect.getMetadata('swagger/apiModelPropertiesArray', LimitsDto.prototype) as string[];
    expect(properties.map((name) => name.slice(1)).sort()).toEqual(ADVERTISED_LIMITS.map(({ field }) => field).sort());
  });
});
