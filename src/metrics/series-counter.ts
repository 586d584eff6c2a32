import { BoundSeriesMetric, type Labels } from './bound-series-metric.js';

/** One labelled counter series: keep it, call `inc`. */
export class CounterSeries {
  value = 0;

  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    this.value += by;
  }
}

/**
 * A counter for events of the request path (polls by source), registered in
 * a prom-client registry and rendered by it like any other. A prom-client
 * child's `inc` hashes and validates its labels on every call; a series here
 * is an object the caller binds once, and an increment is one addition.
 */
export class SeriesCounter extends BoundSeriesMetric<CounterSeries> {
  readonly type = 'counter';

  protected create(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }

  /** What prom-client's registry renders. */
  get() {
    const values = [...this.series.values()].map((series) => ({ labels: series.labels, value: series.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Back to 0, series kept (bound callers keep counting into them). */
  reset(): void {
    for (const series of this.series.values()) series.value = 0;
  }
}
