import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { codeBlocks, docPages, ROOT } from './markdown-blocks.js';

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a page's headings (outside code). */
function anchors(page: string): Set<string> {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const code = new Set(codeBlocks(page).flatMap((block) => block.code.split('\n')));
  return new Set(
    text
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line) && !code.has(line))
      .map((line) => anchorOf(line.replace(/^#+ /, ''))),
  );
}

describe('links between the README and docs/', () => {
  it('point at pages that exist, and at headings those pages have', () => {
    const broken: string[] = [];
    for (const page of docPages()) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // another site
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no ${file})`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
