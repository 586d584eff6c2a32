import { Counter, Registry } from 'prom-client';
import { SeriesCounter } from './series-counter.js';

describe('SeriesCounter', () => {
  it('renders exactly what prom-client renders for the same increments', async () => {
    const ours = new Registry();
    const reference = new Registry();
    const fast = new SeriesCounter('polls_total', 'Polls', ours);
    const stock = new Counter({ name: 'polls_total', help: 'Polls', labelNames: ['source'], registers: [reference] });
    const memory = fast.labels({ source: 'memory' });
    for (let i = 0; i < 3; i += 1) {
      memory.inc();
      stock.labels({ source: 'memory' }).inc();
    }
    fast.labels({ source: 'scan' }).inc(2);
    stock.labels({ source: 'scan' }).inc(2);
    expect(await ours.metrics()).toBe(await reference.metrics());
  });

  it('gives the same series for the same labels; a bound series counts on after a reset', async () => {
    const registry = new Registry();
    const fast = new SeriesCounter('polls_total', 'Polls', registry);
    const bound = fast.labels({ source: 'memory' });
    expect(fast.labels({ source: 'memory' })).toBe(bound);
    bound.inc(5);
    registry.resetMetrics();
    bound.inc();
    expect(await registry.metrics()).toMatch(/^polls_total\{source="memory"\} 1$/m);
  });
});
