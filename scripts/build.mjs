// Builds dist/ (ES modules, and CommonJS in dist/cjs) without ever taking it from a daemon that runs from it.
//   node scripts/build.mjs               build (`npm run build`)
//   node scripts/build.mjs --if-needed   build only when the sources changed since the last build (`npm start`)
// The build goes to a fresh directory beside dist/ and is swapped in by two renames: a daemon started from the
// old dist/ keeps every file it may still import lazily until the swap, and finds a whole build after it. The
// package's bin is made executable each time, and the build is stamped with a digest of what it was built from.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const STAMP = '.build-stamp';
const BIN = join('daemon', 'bin.js');
/** What a build is made from, besides src/: a change to any of these builds again. */
const INPUTS = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.cjs.json',
  'scripts/build.mjs',
  'scripts/cjs-package.mjs',
];

/** Every file under `dir`, sorted, as paths relative to the checkout. */
function filesUnder(dir) {
  return (
    readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      // `path` on Node 20 before 20.12, which CI still runs.
      .map((entry) => relative(ROOT, join(entry.parentPath ?? entry.path, entry.name)))
      .sort()
  );
}

/** A digest of the sources and the build's own settings: equal digests build the same dist/. */
function sourceDigest() {
  const hash = createHash('sha256');
  for (const path of [...INPUTS, ...filesUnder(join(ROOT, 'src'))]) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(ROOT, path)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function upToDate(digest) {
  const stamp = join(DIST, STAMP);
  return existsSync(join(DIST, BIN)) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest;
}

function build(digest) {
  const next = join(ROOT, `.dist-next-${process.pid}`);
  const old = join(ROOT, `.dist-old-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = (args) => execFileSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  try {
    run([tsc, '-p', 'tsconfig.build.json', '--outDir', next]);
    run([tsc, '-p', 'tsconfig.cjs.json', '--outDir', join(next, 'cjs')]);
    run([join(ROOT, 'scripts', 'cjs-package.mjs'), join(next, 'cjs')]);
    // npm marks a bin executable only when it links it (an install), never after a build: the bin is run from
    // the checkout too (npx, npm start), so every build marks it.
    chmodSync(join(next, BIN), 0o755);
    writeFileSync(join(next, STAMP), `${digest}\n`);
  } catch (error) {
    rmSync(next, { recursive: true, force: true });
    throw error;
  }
  // The swap: dist/ is whole before and after (absent only between two renames); only the previous build, no
  // longer dist/, is removed.
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(next, DIST);
  rmSync(old, { recursive: true, force: true });
}

const digest = sourceDigest();
if (process.argv.includes('--if-needed') && upToDate(digest)) {
  console.error('dist/ is up to date with src/ (npm run build builds it again)');
} else {
  build(digest);
}
