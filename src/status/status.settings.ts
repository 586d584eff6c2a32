/** What the status routes check, given by the app that mounts them (the daemon, from its config). */
export interface StatusOptions {
  /** The data dir the readiness check writes a probe into. */
  readonly dataDir: string;
}

export const STATUS_OPTIONS = Symbol('STATUS_OPTIONS');
