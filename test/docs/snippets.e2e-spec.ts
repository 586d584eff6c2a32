import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { codeBlocks, docPages, ROOT } from './markdown-blocks.js';
import { EXAMPLE_CONTEXTS, SUPPORT_FILES } from './snippet-contexts.js';
import { packedRoot } from '../package/support/npm.js';

/**
 * Every TypeScript snippet a reader may copy compiles under `tsc --strict`
 * against the package as npm installs it: each ```ts block of README.md,
 * docs/*.md and packages/*\/README.md, and each ```ts example in a doc
 * comment of src/. A block that only shows a shape is fenced ```ts fragment
 * (shown, not compiled; keep them few). Every block is a file of its own in
 * one scratch project, checked in one tsc program: each is its own module.
 * The example host of docs/examples/host-runtime is copied in whole, as a
 * host copies it (`src/host-runtime/`), and compiled with them.
 */
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

interface Snippet {
  /** Where a reader finds it: `docs/webhooks.md:7`. */
  origin: string;
  code: string;
}

/** The ```ts examples inside the doc comments of one source file. */
function docCommentExamples(file: string): Snippet[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const found: Snippet[] = [];
  let open: { line: number; body: string[] } | undefined;
  lines.forEach((text, index) => {
    const inComment = /^\s*\* ?(.*)$/.exec(text);
    if (!inComment) return;
    const content = inComment[1]!;
    if (content.startsWith('```')) {
      if (open) found.push({ origin: `${file}:${open.line}`, code: open.body.join('\n') });
      open = open ? undefined : content.trim() === '```ts' ? { line: index + 1, body: [] } : undefined;
    } else {
      open?.body.push(content);
    }
  });
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Installed versions in this repo, so the scratch project gets what the lock file holds. */
const version = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The package packed once for every package spec (test/package/support/npm.ts), and the client package packed from a
 * copy of the repo (its own `npm run build:client`, so the client spec emptying packages/client/dist never races it).
 */
function pack(work: string): string[] {
  const copy = join(work, 'repo');
  for (const path of ['src', 'scripts', 'package.json', 'README.md', 'LICENSE', 'packages/client']) {
    cpSync(join(ROOT, path), join(copy, path), {
      recursive: true,
      filter: (from) => !from.includes(`${join('packages', 'client', 'dist')}`),
    });
  }
  for (const name of readdirSync(ROOT).filter((name) => /^tsconfig.*\.json$/.test(name))) cpSync(join(ROOT, name), join(copy, name));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  run(NPM, ['run', 'build:client'], copy);
  const [client] = JSON.parse(run(NPM, ['pack', './packages/client', '--json', '--pack-destination', work], copy)) as Array<{
    filename: string;
  }>;
  return [packedRoot().tarball, join(work, client!.filename)];
}

describe('the TypeScript snippets of the docs', () => {
  jest.setTimeout(900_000);
  let work: string;
  /** The scratch project the first test builds, and its snippets by file. */
  let project: string | undefined;
  const files = new Map<string, Snippet>();
  /** Each problem of a tool's output, prefixed by the page and line of the snippet it is in. */
  const located = (output: string, file: RegExp) =>
    output
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const name = file.exec(line)?.[1];
        const snippet = name === undefined ? undefined : files.get(name);
        return snippet ? `${snippet.origin}: ${line}` : line;
      });
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'turns-snippets-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('compile under tsc --strict against the packed package', () => {
    const pages = [...docPages(), ...readdirSync(join(ROOT, 'packages')).map((dir) => `packages/${dir}/README.md`)];
    const blocks = pages.flatMap((page) => codeBlocks(page)).filter((block) => block.info.split(/\s+/)[0] === 'ts');
    const shownOnly = blocks.filter((block) => block.info.split(/\s+/).includes('fragment'));
    const markdown: Snippet[] = blocks
      .filter((block) => !shownOnly.includes(block))
      .map((block) => ({ origin: `${block.page}:${block.line}`, code: block.code }));
    const examples = sourceFiles('src').flatMap((file) =>
      docCommentExamples(file).map(({ origin, code }) => {
        // An example with imports of its own is whole; one without gets its file's context.
        const context = /^import /m.test(code) ? { before: '' } : (EXAMPLE_CONTEXTS[file] ?? { before: '' });
        return { origin, code: [context.before, code, context.after ?? ''].join('\n') };
      }),
    );
    const snippets = [...markdown, ...examples];

    const dir = join(work, 'project');
    project = dir;
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'snippets', private: true }));
    const tarballs = pack(work);
    const own = [
      '@nestjs/common',
      '@nestjs/core',
      '@nestjs/swagger',
      'reflect-metadata',
      'rxjs',
      'supertest',
      '@types/supertest',
      '@types/jest',
      '@types/node',
    ];
    run(
      NPM,
      ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs, ...own.map((name) => `${name}@${version(name)}`)],
      dir,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2024'],
          types: ['node', 'jest'],
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          esModuleInterop: true,
          skipLibCheck: true,
          noEmit: true,
        },
        include: ['src'],
      }),
    );
    for (const [path, code] of Object.entries(SUPPORT_FILES)) writeFileSync(join(dir, path), code);
    cpSync(join(ROOT, 'docs', 'examples', 'host-runtime'), join(dir, 'src', 'host-runtime'), { recursive: true });
    snippets.forEach((snippet, index) => {
      // Top-level await makes an ES module; the rest compile as a `nest new` project does, CommonJS.
      const extension = /^[^\s/].*\bawait\b/m.test(snippet.code) ? 'mts' : 'ts';
      const name = `src/snippet-${String(index).padStart(2, '0')}-${snippet.origin.replace(/[^A-Za-z0-9]+/g, '-')}.${extension}`;
      writeFileSync(join(dir, name), `${snippet.code}\nexport {};\n`);
      files.set(name, snippet);
    });

    let output = '';
    try {
      run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir, '--pretty', 'false'], dir);
    } catch (error) {
      output = (error as { stdout: string }).stdout;
    }
    // Each error names the page and line a reader would fix, with the compiled file beside it.
    const errors = located(output, /^(src\/[^(]+)\(/);
    console.log(
      `compiled ${snippets.length} TypeScript snippets: ${markdown.length} from ${pages.length} Markdown pages, ` +
        `${examples.length} doc-comment examples; ${shownOnly.length} fenced as fragments (shown only)` +
        (errors.length ? `; the failing project is kept in ${dir}` : ''),
    );
    if (errors.length) work = mkdtempSync(join(tmpdir(), 'turns-snippets-')); // afterAll removes this one instead
    expect(errors).toEqual([]);
    expect(markdown.length).toBeGreaterThan(0);
    expect(examples.length).toBeGreaterThan(0);
  });

  it('lint clean under the ESLint config nest new generates (typed rules, warnings included)', () => {
    expect(project).toBeDefined();
    const config = join(ROOT, 'test', 'fixtures', 'nest-new-eslint', 'eslint.config.mjs');
    const eslint = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
    // In the project, so the typed rules see the package as npm installed it.
    // The example host runtime (docs/examples/host-runtime) is linted as the host would lint its own code.
    const examples = readdirSync(join(project!, 'src', 'host-runtime'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `src/host-runtime/${name}`);
    const linted = [...files.keys(), ...examples];
    const lint = spawnSync(process.execPath, [eslint, '--config', config, '--format', 'json', ...linted], {
      cwd: project,
      encoding: 'utf8',
    });
    const results = JSON.parse(lint.stdout || '[]') as Array<{
      filePath: string;
      messages: Array<{ line: number; ruleId: string | null; message: string; severity: number }>;
    }>;
    // Each problem names the page and line a reader would fix; a file ESLint skipped would be a warning too.
    // A doc comment's example shows a call and what it returns (`const status = …`), which the reader's code then uses.
    const shownCall = (origin: string, ruleId: string | null) =>
      origin.startsWith('src/') && ruleId === '@typescript-eslint/no-unused-vars';
    const problems = results.flatMap(({ filePath, messages }) => {
      const origin = files.get(relative(project!, filePath))?.origin ?? filePath;
      return messages.filter((m) => !shownCall(origin, m.ruleId)).map((m) => `${origin}: snippet line ${m.line}: ${m.ruleId} ${m.message}`);
    });
    expect({ problems, stderr: lint.stderr }).toEqual({ problems: [], stderr: '' });
    expect(results.map(({ filePath }) => relative(project!, filePath)).sort()).toEqual(linted.sort());
  });
});
