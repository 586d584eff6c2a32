import { ConfigError, type Setting } from './setting.js';

/** How a setting reads a value, and its range. */
export type Reader<T> = Pick<Setting<T>, 'read' | 'range'>;

// Node's timers hold at most 2^31-1 ms; a longer time would fire at once.
export const INT32_MAX = 2 ** 31 - 1;

export const text: Reader<string> = { read: (raw) => raw };

/** A whole number from `min` to `max`. */
export function integer(min: number, max: number): Reader<number> {
  return {
    range: [min, max],
    read(raw, variable) {
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
        throw new ConfigError(`${variable} must be an integer from ${min} to ${max} (got "${raw}")`);
      }
      return value;
    },
  };
}

/** A time in ms, from `min` to Node's timer limit. */
export const milliseconds = (min = 1) => integer(min, INT32_MAX);

export function oneOf<const T extends string>(allowed: readonly T[]): Reader<T> {
  return {
    read(raw, variable) {
      if (!(allowed as readonly string[]).includes(raw))
        throw new ConfigError(`${variable} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return raw as T;
    },
  };
}

export const flag: Reader<boolean> = { read: (raw, variable) => oneOf(['true', 'false']).read(raw, variable, '') === 'true' };

/** A comma-separated list, each entry trimmed and checked; `undefined` when it has no entry. */
export function list(entry: (raw: string, variable: string, cwd: string) => string): Reader<string[] | undefined> {
  return {
    read(raw, variable, cwd) {
      const entries = raw
        .split(',')
        .map((value) => value.trim())
        .filter(Boolean);
      return entries.length ? entries.map((value) => entry(value, variable, cwd)) : undefined;
    },
  };
}

/** A value `valid` accepts, else `<variable> <message>` (`%s`: the value; left out for a secret). */
export function checked(valid: (raw: string) => boolean, message: string, normalize = (raw: string) => raw): Reader<string> {
  return {
    read(raw, variable) {
      if (!valid(normalize(raw))) throw new ConfigError(`${variable} ${message.replace('%s', raw)}`);
      return normalize(raw);
    },
  };
}
