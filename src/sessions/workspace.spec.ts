import { workspaceAt, type Workspace } from './workspace.js';

const primary: Workspace = { id: 'w1', cwd: '/srv/one', primary: true };
const other: Workspace = { id: 'w2', cwd: '/srv/two', primary: false };

describe('workspaceAt', () => {
  it('finds the registered workspace at an absolute path, normalized', () => {
    expect(workspaceAt([primary, other], '/srv/two')).toBe(other);
    expect(workspaceAt([primary, other], '/srv/one/../two/')).toBe(other);
  });

  it('never answers a relative path or an unregistered one (no fallback to the primary)', () => {
    expect(workspaceAt([primary, other], 'two')).toBeUndefined();
    expect(workspaceAt([primary, other], '.')).toBeUndefined();
    expect(workspaceAt([primary, other], '/srv/three')).toBeUndefined();
  });
});
