import { channel, type Channel } from 'node:diagnostics_channel';

/**
 * One named `node:diagnostics_channel` of the daemon's events. Producers
 * publish without knowing who listens; with nobody subscribed a publish is
 * one boolean check, so the poll path pays nothing for metrics it does not
 * export. Channels are per process: every app of the process shares them.
 */
export class TurnsChannel<T> {
  private readonly channel: Channel;

  constructor(readonly name: string) {
    this.channel = channel(name);
  }

  /** True while someone listens: lets a producer skip building a message nobody reads. */
  get active(): boolean {
    return this.channel.hasSubscribers;
  }

  publish(message: T): void {
    if (this.channel.hasSubscribers) this.channel.publish(message);
  }

  /** Listens until the returned function is called. */
  subscribe(listener: (message: T) => void): () => void {
    const onMessage = (message: unknown) => listener(message as T);
    this.channel.subscribe(onMessage);
    return () => void this.channel.unsubscribe(onMessage);
  }
}
