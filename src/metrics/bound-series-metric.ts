import type { Registry } from 'prom-client';

/** A series' labels (name → value). */
export type Labels = Record<string, string>;

/**
 * A metric of the request path registered in a prom-client registry and
 * rendered by it like any other, whose series the caller binds once by their
 * labels and keeps: a prom-client child re-hashes and re-validates its labels
 * on every call, a bound series is one object. A reset keeps the series
 * (bound callers go on recording into them).
 */
export abstract class BoundSeriesMetric<S> {
  readonly aggregator = 'sum';
  protected readonly series = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The series of these labels, made on first use. */
  labels(labels: Labels): S {
    const key = JSON.stringify(labels);
    let series = this.series.get(key);
    if (!series) {
      series = this.create(labels);
      this.series.set(key, series);
    }
    return series;
  }

  /** A new series of these labels, as yet with nothing recorded. */
  protected abstract create(labels: Labels): S;
}
