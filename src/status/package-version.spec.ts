import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_VERSION } from './package-version.js';

it('PACKAGE_VERSION is the version in package.json', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  expect(PACKAGE_VERSION).toBe(pkg.version);
});
