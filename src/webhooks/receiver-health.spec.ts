import { failureLine, ReceiverHealth } from './receiver-health.js';

describe('ReceiverHealth', () => {
  it('reports healthy → failing once, however many attempts fail, and failing → healthy once', () => {
    const health = new ReceiverHealth();
    expect(health.note('s1/w1', true)).toBeUndefined();
    expect(health.note('s1/w1', false)).toBe('failing');
    expect(health.note('s1/w1', false)).toBeUndefined();
    expect(health.note('s1/w1', false)).toBeUndefined();
    expect(health.note('s1/w1', true)).toBe('recovered');
    expect(health.note('s1/w1', true)).toBeUndefined();
    expect(health.note('s1/w1', false)).toBe('failing');
  });

  it('keeps each receiver apart', () => {
    const health = new ReceiverHealth();
    expect(health.note('s1/w1', false)).toBe('failing');
    expect(health.note('s1/w2', false)).toBe('failing');
    expect(health.note('operator', false)).toBe('failing');
    expect(health.note('s1/w2', true)).toBe('recovered');
    expect(health.note('s1/w1', false)).toBeUndefined();
  });

  it('stays bounded: past the bound the oldest failing receiver is forgotten and reported again', () => {
    const health = new ReceiverHealth(2);
    health.note('a', false);
    health.note('b', false);
    expect(health.note('c', false)).toBe('failing');
    expect(health.note('b', false)).toBeUndefined();
    expect(health.note('a', false)).toBe('failing');
  });

  it('forgets a receiver that is gone, so nothing recovers', () => {
    const health = new ReceiverHealth();
    health.note('a', false);
    health.forget('a');
    expect(health.note('a', true)).toBeUndefined();
  });
});

describe('failureLine', () => {
  const subscription = { sessionId: 's1', webhookId: 'wh_1' };

  it('names the subscription, the answer and what happens next', () => {
    expect(failureLine({ subscription, status: 500, attempts: 1, maxAttempts: 8, next: 'retry' })).toBe(
      'webhook wh_1 of session s1 is failing: HTTP 500; retrying (attempt 1 of 8); logged again when it recovers',
    );
    expect(failureLine({ subscription, status: 410, attempts: 1, maxAttempts: 8, next: 'disabled' })).toBe(
      'webhook wh_1 of session s1 is failing: HTTP 410; the subscription is disabled',
    );
    expect(failureLine({ error: 'ECONNREFUSED', attempts: 8, maxAttempts: 8, next: 'given_up' })).toBe(
      "the operator's webhook endpoint is failing: ECONNREFUSED; delivery given up after 8 attempts",
    );
  });

  it('points a 401 or 403 at the secret', () => {
    for (const status of [401, 403]) {
      expect(failureLine({ subscription, status, attempts: 1, maxAttempts: 8, next: 'retry' })).toContain('check its secret');
    }
    expect(failureLine({ subscription, status: 404, attempts: 1, maxAttempts: 8, next: 'retry' })).not.toContain('secret');
  });
});
