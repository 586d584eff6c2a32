import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_VERSION } from './package-version.js';

describe('PACKAGE_VERSION', () => {
  const versionOf = (...path: string[]) =>
    (JSON.parse(readFileSync(join(__dirname, '..', '..', ...path), 'utf8')) as { version: string }).version;

  it('is the version of package.json, and of the client package built beside it', () => {
    expect(PACKAGE_VERSION).toBe(versionOf('package.json'));
    expect(versionOf('packages', 'client', 'package.json')).toBe(PACKAGE_VERSION);
  });
});
