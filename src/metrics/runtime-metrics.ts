import { constants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';
import { RequestHistogram, type HistogramSeries } from './request-histogram.js';

/**
 * prom-client's default collectors read when scraped (process CPU, memory,
 * descriptors, heap, handles, version): free between scrapes. Its `gc` and
 * `eventLoopLag` collectors are replaced below; `collectDefaultMetrics` offers
 * no way to leave them out.
 */
const SCRAPE_TIME_DEFAULTS = [
  processCpuTotal,
  processStartTime,
  osMemoryHeap,
  processOpenFileDescriptors,
  processMaxFileDescriptors,
  ...(typeof process.getActiveResourcesInfo === 'function' ? [processResources] : []),
  processHandles,
  processRequests,
  heapSizeAndUsed,
  heapSpacesSizeAndUsed,
  version,
];

/** prom-client's buckets for `nodejs_gc_duration_seconds`, kept so dashboards read the same. */
const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
/** How often (ms) the event loop delay is sampled: prom-client's default precision. */
const LOOP_RESOLUTION_MS = 10;

/**
 * The process series prom-client's `collectDefaultMetrics` gives, same names
 * and labels, at a cost per request of nothing: the event loop delay is read
 * from a native `monitorEventLoopDelay` histogram when scraped, and a GC is
 * one bucket search in a series bound once per kind (prom-client re-hashed
 * its labels for every collection, and kept only the first of a batch).
 * Returns a stop function.
 */
export function registerRuntimeMetrics(registry: Registry): () => void {
  for (const collector of SCRAPE_TIME_DEFAULTS) collector(registry, {});
  const stopLoop = eventLoopDelayGauges(registry);
  const stopGc = gcHistogram(registry);
  return () => {
    stopLoop();
    stopGc();
  };
}

function eventLoopDelayGauges(registry: Registry): () => void {
  const delay: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  delay.enable();
  const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
  const stats: Array<[string, string, (h: IntervalHistogram) => number]> = [
    ['min', 'The minimum recorded event loop delay.', (h) => h.min],
    ['max', 'The maximum recorded event loop delay.', (h) => h.max],
    ['mean', 'The mean of the recorded event loop delays.', (h) => h.mean],
    ['stddev', 'The standard deviation of the recorded event loop delays.', (h) => h.stddev],
    ['p50', 'The 50th percentile of the recorded event loop delays.', (h) => h.percentile(50)],
    ['p90', 'The 90th percentile of the recorded event loop delays.', (h) => h.percentile(90)],
    ['p99', 'The 99th percentile of the recorded event loop delays.', (h) => h.percentile(99)],
  ];
  const gauges: Gauge[] = [];
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds.',
    registers: [registry],
    // Registered before the others, so the registry runs this first: it sets them all before they are read,
    // then starts the next interval. The lag itself is how long a setImmediate waits, now.
    async collect() {
      stats.forEach(([, , read], i) => gauges[i]!.set(seconds(read(delay))));
      delay.reset();
      const started = process.hrtime.bigint();
      await new Promise(setImmediate);
      this.set(Number(process.hrtime.bigint() - started) / 1e9);
    },
  });
  for (const [stat, help] of stats) gauges.push(new Gauge({ name: `nodejs_eventloop_lag_${stat}_seconds`, help, registers: [registry] }));
  return () => delay.disable();
}

function gcHistogram(registry: Registry): () => void {
  const histogram = new RequestHistogram(
    'nodejs_gc_duration_seconds',
    'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    GC_BUCKETS,
    registry,
  );
  const byKind = new Map<number, HistogramSeries>();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind ?? -1;
      let series = byKind.get(kind);
      if (!series) {
        series = histogram.labels({ kind: GC_KINDS[kind] ?? 'unknown' });
        byKind.set(kind, series);
      }
      series.observe(entry.duration / 1_000);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
