import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** FNV-1a of a string: turns `SEED=…` (any text) and a label into a 32-bit seed. */
export function hashSeed(text) {
  let hash = 0x811c9dc5;
  for (const char of String(text)) {
    hash ^= char.codePointAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash | 0;
}

/**
 * The run's one seeded generator. Each concern (the schedule, each client) takes
 * its own `fork(label)`, so one client's extra requests never shift another's draws.
 */
export class Random {
  constructor(seed) {
    this.seed = String(seed);
    this.rng = xoroshiro128plus(hashSeed(this.seed));
  }

  /** An integer in [from, to], both included. */
  int(from, to) {
    return uniformInt(this.rng, Math.ceil(from), Math.floor(to));
  }

  /** True with probability `p`. */
  chance(p) {
    return this.int(0, 9_999) < p * 10_000;
  }

  pick(items) {
    return items[this.int(0, items.length - 1)];
  }

  /** A float in [0, 1) for code that wants one (jitter). */
  next() {
    return this.int(0, 2 ** 30 - 1) / 2 ** 30;
  }

  /** A word of `length` lowercase letters: prompt texts and keys that replay with the seed. */
  word(length = 6) {
    let out = '';
    for (let i = 0; i < length; i += 1) out += String.fromCharCode(97 + this.int(0, 25));
    return out;
  }

  /** `n` bytes, for the webhook secret. */
  bytes(n) {
    return Buffer.from(Array.from({ length: n }, () => this.int(0, 255)));
  }

  fork(label) {
    return new Random(`${this.seed}/${label}`);
  }
}
