import { collectDefaultMetrics, Registry } from 'prom-client';
import { registerRuntimeMetrics } from './runtime-metrics.js';

/** Each series' name, type and label names, as the registry reports them. */
async function shapes(registry: Registry): Promise<string[]> {
  const metrics = await registry.getMetricsAsJSON();
  return metrics
    .map((metric) => {
      const labels = new Set(metric.values.flatMap((value) => Object.keys(value.labels).filter((label) => label !== 'le')));
      return `${metric.name} ${metric.type} [${[...labels].sort().join(',')}]`;
    })
    .sort();
}

describe('registerRuntimeMetrics', () => {
  it("gives the series prom-client's collectDefaultMetrics gives: same names, types and label names", async () => {
    const stock = new Registry();
    collectDefaultMetrics({ register: stock });
    const ours = new Registry();
    const stop = registerRuntimeMetrics(ours);
    try {
      // A GC of some kind happens in both before the scrape; label sets then compare.
      const junk: object[] = [];
      for (let i = 0; i < 300_000; i += 1) junk.push({ i });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [a, b] = [await shapes(stock), await shapes(ours)];
      expect(b.map((line) => line.split(' ')[0])).toEqual(a.map((line) => line.split(' ')[0]));
      expect(b.filter((line) => !line.startsWith('nodejs_gc_'))).toEqual(a.filter((line) => !line.startsWith('nodejs_gc_')));
      expect(b.find((line) => line.startsWith('nodejs_gc_duration_seconds'))).toMatch(/histogram \[(kind)?\]/);
    } finally {
      stop();
    }
  });

  it('reads the event loop delay when scraped: finite, non-negative seconds', async () => {
    const registry = new Registry();
    const stop = registerRuntimeMetrics(registry);
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const text = await registry.metrics();
      for (const stat of ['', '_min', '_max', '_mean', '_p50', '_p99']) {
        const value = Number(new RegExp(`^nodejs_eventloop_lag${stat}_seconds (\\S+)$`, 'm').exec(text)?.[1]);
        expect(Number.isFinite(value) && value >= 0).toBe(true);
      }
      // The delay's max is over the time since the last scrape, at least the sampling resolution (10 ms).
      expect(Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(0.01);
    } finally {
      stop();
    }
  });
});
