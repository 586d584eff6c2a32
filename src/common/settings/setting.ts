/** @publicApi */
export class ConfigError extends Error {}

/**
 * One setting, declared once by the feature that owns it: its variable
 * (`TURNS_<name>`, and the flag `--<name in kebab case>`), how a value is read
 * and checked, its default, what it means, and the `/capabilities.limits` field
 * that advertises it. Option types, defaults, flags and docs derive from it.
 */
export interface Setting<T> {
  /** The variable without its `TURNS_` prefix. */
  name: string;
  doc: string;
  /** Reads a set value; throws a {@link ConfigError} naming `variable`. */
  read(raw: string, variable: string, cwd: string): T;
  /** The value when unset: the one place it is written. A function gets the working directory. */
  default?: T | ((cwd: string) => T);
  /** How help and the docs show a default that is not a plain value. */
  defaultText?: string;
  /** Another variable this one is meaningless without; unset then, the setting is left out (its default too). */
  needs?: { name: string; why?: string };
  /** A `true`/`false` setting whose flag alone means `true` (`--rate-limit`, as the peer's), or takes a value (`--metrics false`). */
  switch?: boolean;
  /** Integer settings: the range, shown in help. */
  range?: readonly [number, number];
  /** The `/capabilities.limits` field that reports the value in force, if any. */
  limit?: string;
}

/** A feature's settings by option name. */
export type Settings = Record<string, Setting<unknown>>;

/** The value type of a setting. */
export type SettingValue<S> = S extends Setting<infer T> ? NonNullable<T> : never;

/** The options a feature's settings make: each optional, typed by its reader. */
export type SettingOptions<S extends Settings> = { -readonly [K in keyof S]?: SettingValue<S[K]> };

/** The values of `settings` in force: those with a default always there, the others when set. */
export type SettingValues<S extends Settings> = {
  -readonly [K in keyof S as S[K] extends { default: unknown } ? K : never]: SettingValue<S[K]>;
} & { -readonly [K in keyof S as S[K] extends { default: unknown } ? never : K]?: SettingValue<S[K]> };

/**
 * `given` completed with the plain defaults of `settings`: a feature's values in force. A default that is a function
 * of the working directory is the loader's to apply; such a setting must be given.
 */
export function valuesOf<S extends Settings>(settings: S, given: SettingOptions<S>): SettingValues<S> {
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    const value = (given as Record<string, unknown>)[key] ?? (typeof setting.default === 'function' ? undefined : setting.default);
    if (value !== undefined) values[key] = value;
  }
  return values as SettingValues<S>;
}

/** The plain defaults of `settings` (those that are a value, not a function of the working directory). */
export type SettingDefaults<S extends Settings> = {
  readonly [K in keyof S as S[K] extends { default: number | string | boolean } ? K : never]: S[K] extends { default: infer D } ? D : never;
};

/** The plain defaults of `settings`, by option name: what a consumer falls back to. */
export function defaultsOf<const S extends Settings>(settings: S): SettingDefaults<S> {
  const defaults: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    if (setting.default !== undefined && typeof setting.default !== 'function') defaults[key] = setting.default;
  }
  return defaults as SettingDefaults<S>;
}

/** The fields of `values` that `settings` declares, the unset ones left out: a feature's options out of a whole config. */
export function pickSettings<V extends object, S extends Settings>(values: V, settings: S): Pick<V, Extract<keyof S, keyof V>> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(settings)) {
    const value = (values as Record<string, unknown>)[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked as Pick<V, Extract<keyof S, keyof V>>;
}

/** The default of a setting as help and the docs show it. */
export function shownDefault(setting: Setting<unknown>): string | undefined {
  if (setting.defaultText !== undefined) return setting.defaultText;
  return setting.default === undefined || typeof setting.default === 'function' ? undefined : String(setting.default);
}
