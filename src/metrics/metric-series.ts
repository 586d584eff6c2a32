import { Gauge, type Registry } from 'prom-client';

/** A telemetry channel, as the series subscribe to it. */
export interface Channel<T> {
  subscribe(listener: (message: T) => void): () => void;
}

/** Where a group of series registers: the daemon's registry, and the channel subscriptions that end with it. */
export class MetricSeries {
  readonly registers: Registry[];
  private readonly unsubscribe: Array<() => void> = [];

  constructor(registry: Registry) {
    this.registers = [registry];
  }

  /** Listens on a telemetry channel until {@link close}. */
  on<T>(channel: Channel<T>, listener: (message: T) => void): void {
    this.unsubscribe.push(channel.subscribe(listener));
  }

  /** Runs `stop` at {@link close}. */
  stopOnClose(stop: () => void): void {
    this.unsubscribe.push(stop);
  }

  /** A gauge read from a live service when scraped: the request path pays nothing for it. */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: this.registers,
      collect() {
        this.set(read());
      },
    });
  }

  close(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
  }
}
