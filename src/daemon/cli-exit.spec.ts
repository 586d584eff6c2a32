import { EXIT, exitCodeOfAnswer } from './cli-exit.js';

describe('exitCodeOfAnswer', () => {
  it('exits notFound for what the daemon does not know', () => {
    for (const code of ['session_not_found', 'prompt_not_found', 'permission_not_found'] as const) {
      expect(exitCodeOfAnswer({ code })).toBe(EXIT.notFound);
    }
  });

  it('exits 4 when the daemon refuses the request, as docs/waiting.md has it (usage or connection)', () => {
    for (const code of ['permission_forbidden', 'permission_option_not_offered', 'unauthorized', undefined] as const) {
      expect(exitCodeOfAnswer({ code })).toBe(EXIT.usage);
    }
    // Each outcome its own code (badSetting is serve's alone, and shares cancelled's).
    const { badSetting: _serveOnly, ...codes } = EXIT;
    expect(new Set(Object.values(codes)).size).toBe(Object.keys(codes).length);
  });
});
