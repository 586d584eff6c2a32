import { ConfigError, isLoopback, loadDaemonConfig } from './daemon-config.js';

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
      promptDeadlineMs: undefined,
      maxPendingPrompts: 5,
      chatRecording: true,
      httpAdapter: 'express',
      echoDelayMs: 0,
    });
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

  it('refuses a non-loopback bind without a token', () => {
    expect(() => loadDaemonConfig({ TURNS_HOST: '0.0.0.0' })).toThrow(ConfigError);
    expect(loadDaemonConfig({ TURNS_HOST: '0.0.0.0', TURNS_TOKEN: 't' }).host).toBe('0.0.0.0');
  });

  it('rejects bad values with the variable name', () => {
    expect(() => loadDaemonConfig({ TURNS_PORT: 'abc' })).toThrow(/TURNS_PORT/);
    expect(() => loadDaemonConfig({ TURNS_AGENT: 'gpt' })).toThrow(/TURNS_AGENT/);
    expect(() => loadDaemonConfig({ TURNS_AGENT: 'acp' })).toThrow(/TURNS_AGENT_COMMAND/);
    expect(() => loadDaemonConfig({ TURNS_WORKSPACES: 'relative/path' })).toThrow(/absolute/);
    expect(() => loadDaemonConfig({ TURNS_PROMPT_DEADLINE_MS: '0' })).toThrow(/TURNS_PROMPT_DEADLINE_MS/);
  });

  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', '::'].some(isLoopback)).toBe(false);
  });
});
