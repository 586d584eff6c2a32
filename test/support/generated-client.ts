import { execFile } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

/**
 * What a user of a generated client does, in `dir` (inside the repo, so the
 * program resolves openapi-fetch): openapi-typescript turns `document` into
 * `schema.d.ts`, and `program` (a fixture of test/fixtures/openapi-client) is
 * type-checked against it, strict. Answers tsc's output: empty when it compiles.
 */
export async function compileClientProgram(dir: string, document: unknown, program: string): Promise<string> {
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
  await run(process.execPath, [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), 'openapi.json', '-o', 'schema.d.ts'], {
    cwd: dir,
  });
  copyFileSync(join(ROOT, 'test', 'fixtures', 'openapi-client', program), join(dir, 'program.mts'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
      },
      files: ['program.mts'],
    }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir }).catch((error: { stdout: string }) => error);
  return compiled.stdout;
}

/** Runs the compiled program against `url`; answers what it printed. */
export async function runClientProgram(dir: string, url: string): Promise<string> {
  return (await run(process.execPath, ['program.mjs', url], { cwd: dir })).stdout;
}
