import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

/** One labelled series: counts per bucket (not cumulative), their sum and count. */
export class HistogramSeries {
  private readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i += 1;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }

  /** Cumulative counts per upper bound, the last for `+Inf`. */
  cumulative(): number[] {
    let total = 0;
    return Array.from(this.counts, (n) => (total += n));
  }

  /** Back to no observations (the object stays: callers keep it bound). */
  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/**
 * A histogram for the per-request series, registered in a prom-client
 * registry and rendered by it like any other. prom-client's own child
 * `observe` re-validates and re-hashes its labels on every call (~1.5 µs,
 * a few % of a Fastify poll); a series here is an object the caller keeps,
 * and an observation is a bucket search and three additions.
 */
export class RequestHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The series of these labels (made on first use); keep it and call `observe`. */
  labels(labels: Labels): HistogramSeries {
    const key = JSON.stringify(labels);
    let series = this.series.get(key);
    if (!series) {
      series = new HistogramSeries(labels, this.bounds);
      this.series.set(key, series);
    }
    return series;
  }

  /** What prom-client's registry renders: buckets (with `le`), `_sum` and `_count` per series. */
  get() {
    // A series with nothing observed (since a reset) is not rendered, as prom-client renders none.
    const values = [...this.series.values()].flatMap((series) => {
      if (series.count === 0) return [];
      const cumulative = series.cumulative();
      return [
        ...cumulative.map((value, i) => ({
          metricName: `${this.name}_bucket`,
          labels: { le: i < this.bounds.length ? String(this.bounds[i]) : '+Inf', ...series.labels },
          value,
        })),
        { metricName: `${this.name}_sum`, labels: series.labels, value: series.sum },
        { metricName: `${this.name}_count`, labels: series.labels, value: series.count },
      ];
    });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Back to no series shown; the series objects are kept (bound callers keep observing into them). */
  reset(): void {
    for (const series of this.series.values()) series.clear();
  }
}
