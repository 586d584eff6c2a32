import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

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
export class SeriesCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, CounterSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The series of these labels (made on first use, at 0). */
  labels(labels: Labels): CounterSeries {
    const key = JSON.stringify(labels);
    let series = this.series.get(key);
    if (!series) {
      series = new CounterSeries(labels);
      this.series.set(key, series);
    }
    return series;
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
