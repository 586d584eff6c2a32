import { rateLimitTier } from './rate-limit-tier.js';

describe('rateLimitTier', () => {
  it.each([
    ['POST', '/session/:id/prompt', '/session/s1/prompt', 'prompt'],
    ['POST', '/session', '/session', 'mutation'],
    ['DELETE', '/session/:id', '/session/s1', 'mutation'],
    ['POST', '/session/:id/cancel', '/session/s1/cancel', 'mutation'],
    ['DELETE', '/session/:id/pending-prompts/:promptId', '/session/s1/pending-prompts/p', 'mutation'],
    ['GET', '/session/:id/turns/:promptId', '/session/s1/turns/p', 'read'],
    ['HEAD', '/session/:id/turns/current', '/session/s1/turns/current', 'read'],
    ['GET', '/capabilities', '/capabilities', 'read'],
    ['HEAD', '/session/:id/events', '/session/s1/events', 'read'],
    ['POST', '/health', '/health', 'mutation'],
  ])('%s %s is a %s', (method, template, path, tier) => {
    expect(rateLimitTier(method, template, path)).toBe(tier);
  });

  it.each([
    ['OPTIONS', '/session/:id/prompt', '/session/s1/prompt'],
    ['GET', '/health', '/health'],
    ['HEAD', '/health', '/health'],
    ['GET', '/health/ready', '/health/ready'],
    ['POST', '/session/:id/heartbeat', '/session/s1/heartbeat'],
    ['GET', '/session/:id/events', '/session/s1/events'],
  ])('%s %s is exempt', (method, template, path) => {
    expect(rateLimitTier(method, template, path)).toBeUndefined();
  });

  // A path no route matched, that a framework may still route (case, a trailing slash): judged by the path alike.
  it.each([
    ['POST', '/session/s1/prompt/', 'prompt'],
    ['POST', '/Session/s1/PROMPT', 'prompt'],
    ['GET', '/Health', undefined],
    ['GET', '/health/ready/', undefined],
    ['GET', '/healthz', 'read'],
    ['POST', '/session/s1/heartbeat/', undefined],
    ['GET', '/session/s1/Events', undefined],
    ['GET', '/nowhere', 'read'],
    ['PUT', '/nowhere', 'mutation'],
    ['POST', '/session/s1/prompt/extra', 'mutation'],
  ])('unmatched %s %s is %s', (method, path, tier) => {
    expect(rateLimitTier(method, undefined, path)).toBe(tier);
  });
});
