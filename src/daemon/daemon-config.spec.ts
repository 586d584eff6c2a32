import { ConfigError, isLoopback, loadDaemonConfig, parseDaemonFlags, readDaemonConfig, settingNamer } from './daemon-config.js';

describe('loadDaemonConfig', () => {
  it('has offline defaults', () => {
    expect(loadDaemonConfig({}, [], '/srv/app')).toEqual({
      host: '127.0.0.1',
      port: 4170,
      dataDir: '/srv/app/.turns-data',
      workspaces: ['/srv/app'],
      agent: 'echo',
      agentCommand: undefined,
      token: undefined,
      tokensFile: undefined,
      requireAuth: false,
      promptDeadlineMs: undefined,
      maxPendingPrompts: 5,
      chatRecording: true,
      httpAdapter: 'express',
      echoDelayMs: 0,
      echoUsage: false,
      maxSessions: 32,
      sessionIdleTimeoutMs: 1_800_000,
      maxSseStreams: 1_000,
      maxSseStreamsPerSession: 16,
      maxBodyBytes: 4 * 1024 * 1024,
      maxPromptChars: 1024 * 1024,
      activityRefreshMs: 1_000,
      maxTranscriptBytes: 256 * 1024 * 1024,
      maxWaitMs: 30_000,
      maxWaiters: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      rateLimit: false,
      rateLimitPrompt: 10,
      rateLimitMutation: 30,
      rateLimitRead: 120,
      rateLimitWindowMs: 60_000,
      maxIdempotencyKeys: 10_000,
      idempotencyTtlMs: 86_400_000,
      webhookTimeoutMs: 10_000,
      webhookMaxAttempts: 8,
      webhookRetryBaseMs: 5_000,
      maxWebhooksPerSession: 8,
      log: 'info',
      logPolls: false,
      metrics: true,
      metricsPort: undefined,
      permissionPolicy: 'ask',
      permissionResponder: 'first-responder',
      tracing: false,
    });
  });

  it('takes --rate-limit alone, as the peer does, or with a value; its budgets as flags or variables', () => {
    expect(readDaemonConfig(parseDaemonFlags(['--rate-limit', '--rate-limit-read', '12']), {})).toMatchObject({
      rateLimit: true,
      rateLimitRead: 12,
    });
    expect(readDaemonConfig(parseDaemonFlags(['--rate-limit', 'false']), { TURNS_RATE_LIMIT: 'true' }).rateLimit).toBe(false);
    expect(readDaemonConfig({}, { TURNS_RATE_LIMIT: 'true', TURNS_RATE_LIMIT_WINDOW_MS: '5000' })).toMatchObject({
      rateLimit: true,
      rateLimitWindowMs: 5_000,
    });
    expect(() => readDaemonConfig({}, { TURNS_RATE_LIMIT_WINDOW_MS: '999' })).toThrow(
      /TURNS_RATE_LIMIT_WINDOW_MS must be an integer from 1000/,
    );
    expect(() => readDaemonConfig({}, { TURNS_RATE_LIMIT_PROMPT: '0' })).toThrow(/TURNS_RATE_LIMIT_PROMPT/);
    // As high as a benchmark sets them to measure the stage's cost alone.
    expect(readDaemonConfig({}, { TURNS_RATE_LIMIT_READ: '1000000000' }).rateLimitRead).toBe(1_000_000_000);
  });

  it('reads the operating settings: log level, metrics on or off, a metrics port of its own', () => {
    expect(loadDaemonConfig({ TURNS_LOG: 'warn', TURNS_METRICS_PORT: '9464' })).toMatchObject({
      log: 'warn',
      metrics: true,
      metricsPort: 9464,
    });
    expect(loadDaemonConfig({ TURNS_METRICS: 'false' }).metrics).toBe(false);
    expect(() => loadDaemonConfig({ TURNS_LOG: 'loud' })).toThrow(
      /TURNS_LOG must be one of fatal, error, warn, info, debug, trace, silent/,
    );
    expect(() => loadDaemonConfig({ TURNS_PORT: '5000', TURNS_METRICS_PORT: '5000' })).toThrow(/TURNS_METRICS_PORT must differ/);
    expect(() => loadDaemonConfig({ TURNS_METRICS: 'false', TURNS_METRICS_PORT: '9464' })).toThrow(
      /TURNS_METRICS_PORT needs --metrics or TURNS_METRICS=true/,
    );
  });

  it('reads the environment, and CLI flags win', () => {
    const config = loadDaemonConfig(
      { TURNS_PORT: '5000', TURNS_WORKSPACES: '/a,/b', TURNS_PROMPT_DEADLINE_MS: '100', TURNS_HTTP_ADAPTER: 'fastify' },
      ['--port', '6000', '--chat-recording', 'false'],
      '/x',
    );
    expect(config).toMatchObject({
      port: 6000,
      workspaces: ['/a', '/b'],
      promptDeadlineMs: 100,
      httpAdapter: 'fastify',
      chatRecording: false,
    });
  });

  it('reads and range-checks the idempotency settings', () => {
    expect(loadDaemonConfig({ TURNS_MAX_IDEMPOTENCY_KEYS: '5', TURNS_IDEMPOTENCY_TTL_MS: '60000' })).toMatchObject({
      maxIdempotencyKeys: 5,
      idempotencyTtlMs: 60_000,
    });
    expect(() => loadDaemonConfig({ TURNS_MAX_IDEMPOTENCY_KEYS: '0' })).toThrow(/TURNS_MAX_IDEMPOTENCY_KEYS/);
    expect(() => loadDaemonConfig({}, ['--idempotency-ttl-ms', '10'])).toThrow(/^--idempotency-ttl-ms must be/);
  });

  it('names a bad value by the flag that set it, else by its variable: the operator changes what they set', () => {
    expect(() => loadDaemonConfig({}, ['--permission-policy', 'maybe'])).toThrow(/^--permission-policy must be one of ask, /);
    expect(() => loadDaemonConfig({ TURNS_PERMISSION_POLICY: 'maybe' })).toThrow(/^TURNS_PERMISSION_POLICY must be one of ask, /);
    // The flag wins over the variable, in the value read and in the name given.
    expect(() => loadDaemonConfig({ TURNS_PERMISSION_POLICY: 'ask' }, ['--permission-policy', 'maybe'])).toThrow(/^--permission-policy /);
    // Rules between settings, and a setting that needs another, name each as it was set.
    expect(() => loadDaemonConfig({ TURNS_METRICS: 'true', TURNS_PORT: '4170' }, ['--metrics-port', '4170'])).toThrow(
      '--metrics-port must differ from TURNS_PORT',
    );
    expect(() => loadDaemonConfig({}, ['--node-id', 'a'])).toThrow('--node-id needs --redis-url or TURNS_REDIS_URL (cluster mode)');
  });

  it('reads the origins a web UI may call from, normalized as browsers send them', () => {
    expect(loadDaemonConfig({ TURNS_ALLOW_ORIGINS: 'http://LocalHost:3000/, https://ui.example:443' }).allowOrigins).toEqual([
      'http://localhost:3000',
      'https://ui.example',
    ]);
    expect(loadDaemonConfig({ TURNS_ALLOW_ORIGINS: '*', TURNS_TOKEN: 't' }).allowOrigins).toEqual(['*']);
    expect(() => loadDaemonConfig({ TURNS_ALLOW_ORIGINS: '*' })).toThrow(
      'TURNS_ALLOW_ORIGINS=* needs --token or TURNS_TOKEN, or --tokens-file or TURNS_TOKENS_FILE',
    );
    // What is still to set is named both ways, whichever way the rest was given.
    expect(() => loadDaemonConfig({}, ['--agent', 'acp'])).toThrow('--agent=acp needs --agent-command or TURNS_AGENT_COMMAND');
    for (const bad of ['localhost:3000', 'http://ui.example/app', 'file:///x', 'null', 'http://user@ui.example']) {
      expect(() => loadDaemonConfig({ TURNS_ALLOW_ORIGINS: bad })).toThrow(/TURNS_ALLOW_ORIGINS entries must be origins/);
    }
  });

  it('reads the accepted host names', () => {
    expect(loadDaemonConfig({ TURNS_ALLOWED_HOSTS: 'Turns.Internal, 10.0.0.5,[::1]' }).allowedHosts).toEqual([
      'turns.internal',
      '10.0.0.5',
      '[::1]',
    ]);
    for (const bad of ['turns.internal:4170', 'http://turns.internal', 'a b']) {
      expect(() => loadDaemonConfig({ TURNS_ALLOWED_HOSTS: bad })).toThrow(/TURNS_ALLOWED_HOSTS entries must be host names/);
    }
  });

  it('refuses a non-loopback bind without a token', () => {
    expect(() => loadDaemonConfig({ TURNS_HOST: '0.0.0.0' })).toThrow(ConfigError);
    expect(loadDaemonConfig({ TURNS_HOST: '0.0.0.0', TURNS_TOKEN: 't' }).host).toBe('0.0.0.0');
    expect(loadDaemonConfig({ TURNS_HOST: '0.0.0.0', TURNS_TOKENS_FILE: 'tokens' }, [], '/etc/turns').tokensFile).toBe('/etc/turns/tokens');
  });

  it('requires a token with --require-auth, which may stand alone as the peer spells it', () => {
    expect(() => loadDaemonConfig({}, ['--require-auth'])).toThrow(
      new ConfigError(
        '--require-auth needs --token or TURNS_TOKEN, or --tokens-file or TURNS_TOKENS_FILE: with no token, no request but /health could ever be authorized',
      ),
    );
    expect(() => loadDaemonConfig({ TURNS_REQUIRE_AUTH: 'true' })).toThrow(
      /^TURNS_REQUIRE_AUTH needs --token or TURNS_TOKEN, or --tokens-file or TURNS_TOKENS_FILE/,
    );
    expect(loadDaemonConfig({ TURNS_TOKEN: 't' }, ['--require-auth']).requireAuth).toBe(true);
    expect(loadDaemonConfig({ TURNS_TOKENS_FILE: '/t' }, ['--require-auth', 'true']).requireAuth).toBe(true);
    expect(loadDaemonConfig({}, ['--require-auth', 'false']).requireAuth).toBe(false);
    expect(() => loadDaemonConfig({}, ['--require-auth', 'yes'])).toThrow(/--require-auth must be one of true, false/);
  });

  it('rejects bad values with the variable name', () => {
    expect(() => loadDaemonConfig({ TURNS_PORT: 'abc' })).toThrow(/TURNS_PORT/);
    expect(() => loadDaemonConfig({ TURNS_AGENT: 'gpt' })).toThrow(/TURNS_AGENT/);
    expect(() => loadDaemonConfig({ TURNS_AGENT: 'acp' })).toThrow(/TURNS_AGENT_COMMAND/);
    expect(() => loadDaemonConfig({ TURNS_WORKSPACES: 'relative/path' })).toThrow(/absolute/);
    expect(() => loadDaemonConfig({ TURNS_PROMPT_DEADLINE_MS: '0' })).toThrow(/TURNS_PROMPT_DEADLINE_MS/);
  });

  it('range-checks every number, with one line naming the variable', () => {
    expect(() => loadDaemonConfig({ TURNS_PROMPT_DEADLINE_MS: String(2 ** 31) })).toThrow(
      'TURNS_PROMPT_DEADLINE_MS must be an integer from 1 to 2147483647 (got "2147483648")',
    );
    expect(loadDaemonConfig({ TURNS_PROMPT_DEADLINE_MS: String(2 ** 31 - 1) }).promptDeadlineMs).toBe(2 ** 31 - 1);
    expect(() => loadDaemonConfig({ TURNS_PORT: '70000' })).toThrow(/TURNS_PORT/);
    expect(() => loadDaemonConfig({ TURNS_MAX_PENDING_PROMPTS: '0' })).toThrow(/TURNS_MAX_PENDING_PROMPTS/);
    expect(() => loadDaemonConfig({ TURNS_ECHO_DELAY_MS: '-1' })).toThrow(/TURNS_ECHO_DELAY_MS/);
    expect(() => loadDaemonConfig({ TURNS_MAX_SESSIONS: '1e3' })).toThrow(/TURNS_MAX_SESSIONS/);
    expect(() => loadDaemonConfig({ TURNS_MAX_BODY_BYTES: '10' })).toThrow(/TURNS_MAX_BODY_BYTES/);
    expect(() => loadDaemonConfig({ TURNS_HEADERS_TIMEOUT_MS: '5000', TURNS_REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      /TURNS_HEADERS_TIMEOUT_MS/,
    );
    expect(() => loadDaemonConfig({}, ['--no-such-flag'])).toThrow(ConfigError);
    expect(loadDaemonConfig({}, ['--max-sessions', '3']).maxSessions).toBe(3);
  });

  it('names a setting by the flag the command line gave, else by its variable', () => {
    const named = settingNamer(parseDaemonFlags(['--port', '5000', '--data-dir', '/tmp/d']));
    expect([named('port'), named('dataDir'), named('host'), named('maxSessions')]).toEqual([
      '--port',
      '--data-dir',
      'TURNS_HOST',
      'TURNS_MAX_SESSIONS',
    ]);
    expect(settingNamer()('port')).toBe('TURNS_PORT');
  });

  it('is a single daemon unless TURNS_REDIS_URL is set; cluster settings alone are refused', () => {
    expect(loadDaemonConfig({}).redisUrl).toBeUndefined();
    expect(() => loadDaemonConfig({ TURNS_NODE_ID: 'a' })).toThrow('TURNS_NODE_ID needs --redis-url or TURNS_REDIS_URL (cluster mode)');
    expect(() => loadDaemonConfig({ TURNS_LEASE_MS: '5000' })).toThrow(/TURNS_LEASE_MS needs --redis-url or TURNS_REDIS_URL/);
  });

  it('reads cluster mode: defaults, checks, and a node URL when bound to every interface', () => {
    const config = loadDaemonConfig({ TURNS_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config).toMatchObject({ redisUrl: 'redis://127.0.0.1:6379', leaseMs: 10_000, forwardTimeoutMs: 10_000, nodeUrl: undefined });
    expect(config.nodeId).toMatch(/^[A-Za-z0-9._:-]+-[0-9a-f]{6}$/);
    expect(
      loadDaemonConfig({
        TURNS_REDIS_URL: 'rediss://r:6380/2',
        TURNS_NODE_ID: 'node-a',
        TURNS_NODE_URL: 'http://10.0.0.5:4170/',
        TURNS_LEASE_MS: '3000',
      }),
    ).toMatchObject({ nodeId: 'node-a', nodeUrl: 'http://10.0.0.5:4170', leaseMs: 3000 });
    expect(() => loadDaemonConfig({ TURNS_REDIS_URL: 'http://r' })).toThrow(/TURNS_REDIS_URL/);
    expect(() => loadDaemonConfig({ TURNS_REDIS_URL: 'redis://r', TURNS_NODE_ID: 'a b' })).toThrow(/TURNS_NODE_ID/);
    expect(() => loadDaemonConfig({ TURNS_REDIS_URL: 'redis://r', TURNS_NODE_URL: 'http://h/path' })).toThrow(/TURNS_NODE_URL/);
    expect(() => loadDaemonConfig({ TURNS_REDIS_URL: 'redis://r', TURNS_LEASE_MS: '999' })).toThrow(/TURNS_LEASE_MS/);
    expect(() => loadDaemonConfig({ TURNS_REDIS_URL: 'redis://r', TURNS_FORWARD_TIMEOUT_MS: '50' })).toThrow(/TURNS_FORWARD_TIMEOUT_MS/);
    expect(() => loadDaemonConfig({ TURNS_REDIS_URL: 'redis://r', TURNS_HOST: '0.0.0.0', TURNS_TOKEN: 't' })).toThrow(/TURNS_NODE_URL/);
    expect(
      loadDaemonConfig({ TURNS_REDIS_URL: 'redis://r', TURNS_HOST: '0.0.0.0', TURNS_TOKEN: 't', TURNS_NODE_URL: 'http://10.0.0.5:4170' })
        .host,
    ).toBe('0.0.0.0');
  });

  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', '::'].some(isLoopback)).toBe(false);
  });
});
