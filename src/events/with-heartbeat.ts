import { Observable } from 'rxjs';

/**
 * `source`, with `beat()` emitted every `intervalMs` while it runs; ends when
 * `source` ends (a closed session ends its streams, heartbeats included).
 */
export function withHeartbeat<T>(source: Observable<T>, intervalMs: number, beat: () => T): Observable<T> {
  return new Observable<T>((subscriber) => {
    const timer = setInterval(() => subscriber.next(beat()), intervalMs);
    timer.unref?.();
    const subscription = source.subscribe(subscriber);
    return () => {
      clearInterval(timer);
      subscription.unsubscribe();
    };
  });
}
