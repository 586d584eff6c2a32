import type { Workspace } from './workspace.js';

/** Workspaces the daemon serves; the first is primary. */
export interface RuntimeWorkspaces {
  workspaces: Workspace[];
}

export const RUNTIME_WORKSPACES = Symbol('RUNTIME_WORKSPACES');
