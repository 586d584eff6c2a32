import { isAbsolute, resolve } from 'node:path';

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

/** The registered workspace at `cwd`; a relative path never names one. */
export function workspaceAt(workspaces: readonly Workspace[], cwd: string): Workspace | undefined {
  const wanted = isAbsolute(cwd) ? resolve(cwd) : undefined;
  return workspaces.find((w) => w.cwd === wanted);
}
