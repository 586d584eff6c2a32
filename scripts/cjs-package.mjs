// Marks a CommonJS build directory as such (default dist/cjs): the package is
// "type": "module", so without this Node would read its .js files as ES modules.
//   node scripts/cjs-package.mjs [dir]
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? 'dist/cjs');
writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
