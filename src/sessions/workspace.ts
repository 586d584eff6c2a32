/**
 * A directory the daemon serves sessions for.
 *
 * @publicApi
 */
export interface Workspace {
  /** Stable id of the workspace (its data directory name). */
  id: string;
  /** Absolute path. */
  cwd: string;
  primary: boolean;
}
