/**
 * Polls `probe` every `intervalMs` until it returns a value (a throw counts
 * as not yet), for at most `ms`. For state another process or a real network
 * peer reaches at its own pace; ordering rules use controlled promises instead.
 */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
