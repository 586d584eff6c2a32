import { Histogram, Registry } from 'prom-client';
import { RequestHistogram } from './request-histogram.js';

describe('RequestHistogram', () => {
  const bounds = [0.001, 0.01, 0.1];
  const observations = [0.0005, 0.001, 0.005, 0.05, 0.5, 2];

  it('renders exactly what prom-client renders for the same observations', async () => {
    const ours = new Registry();
    const reference = new Registry();
    const fast = new RequestHistogram('req_seconds', 'Requests', bounds, ours);
    const stock = new Histogram({
      name: 'req_seconds',
      help: 'Requests',
      labelNames: ['route', 'status'],
      buckets: bounds,
      registers: [reference],
    });
    const a = fast.labels({ route: '/a', status: '200' });
    const b = fast.labels({ route: '/b', status: '404' });
    for (const value of observations) {
      a.observe(value);
      stock.labels({ route: '/a', status: '200' }).observe(value);
    }
    b.observe(0.02);
    stock.labels({ route: '/b', status: '404' }).observe(0.02);
    expect(await ours.metrics()).toBe(await reference.metrics());
  });

  it('gives the same series object for the same labels, and reset empties it', async () => {
    const registry = new Registry();
    const fast = new RequestHistogram('req_seconds', 'Requests', bounds, registry);
    expect(fast.labels({ route: '/a' })).toBe(fast.labels({ route: '/a' }));
    fast.labels({ route: '/a' }).observe(1);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toMatch(/req_seconds_count/);
  });

  it('keeps counting into a series bound before a reset (TurnsMetrics keeps its children)', async () => {
    const registry = new Registry();
    const fast = new RequestHistogram('req_seconds', 'Requests', bounds, registry);
    const bound = fast.labels({ route: '/a' });
    bound.observe(1);
    registry.resetMetrics();
    bound.observe(0.02);
    expect(await registry.metrics()).toMatch(/req_seconds_count\{route="\/a"\} 1\n/);
    expect(await registry.metrics()).toMatch(/req_seconds_sum\{route="\/a"\} 0.02\n/);
  });
});
