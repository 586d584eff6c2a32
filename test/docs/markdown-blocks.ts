import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** One fenced code block of a Markdown page. */
export interface CodeBlock {
  /** The page, relative to the repo (`docs/walkthrough.md`). */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string, e.g. `ts` or `ts fragment`. */
  info: string;
  code: string;
}

/** The README and every page under docs/, relative to the repo. */
export function docPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** Every fenced block of a page, in order (``` fences only, as the pages use). */
export function codeBlocks(page: string): CodeBlock[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  let open: { line: number; info: string; body: string[] } | undefined;
  lines.forEach((text, index) => {
    if (!text.startsWith('```')) {
      open?.body.push(text);
    } else if (open) {
      blocks.push({ page, line: open.line, info: open.info, code: open.body.join('\n') + '\n' });
      open = undefined;
    } else {
      open = { line: index + 1, info: text.slice(3).trim(), body: [] };
    }
  });
  if (open) throw new Error(`${page}:${open.line}: a code fence is never closed`);
  return blocks;
}
