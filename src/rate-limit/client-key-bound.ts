/**
 * Which keys get a bucket of their own: at most `max` distinct keys seen in
 * the current and the previous window (a bucket lives one window after its
 * first request, so every live bucket's key is in one of the two). Past
 * that, a new key is refused its own bucket and its caller counts as its
 * principal's anonymous traffic, so memory stays bounded whatever the keys.
 */
export class ClientKeyBound {
  private current = new Set<string>();
  private previous = new Set<string>();
  private rotatedAt: number;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {
    this.rotatedAt = now();
  }

  /** Whether `key` has (or now gets) a bucket of its own. */
  admit(key: string): boolean {
    this.rotate();
    if (this.current.has(key)) return true;
    if (!this.previous.has(key) && this.current.size + this.previous.size >= this.max) return false;
    this.current.add(key);
    return true;
  }

  /** Keys with a bucket of their own now. */
  get size(): number {
    return new Set([...this.current, ...this.previous]).size;
  }

  private rotate(): void {
    const elapsed = this.now() - this.rotatedAt;
    if (elapsed < this.windowMs) return;
    this.previous = elapsed < 2 * this.windowMs ? this.current : new Set();
    this.current = new Set();
    this.rotatedAt = this.now();
  }
}
