import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { codeBlocks, docPages, ROOT } from './markdown-blocks.js';

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a page: its headings' (outside code), and each `<a id="…">`. */
function anchors(page: string): Set<string> {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const code = new Set(codeBlocks(page).flatMap((block) => block.code.split('\n')));
  return new Set([
    ...text
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line) && !code.has(line))
      .map((line) => anchorOf(line.replace(/^#+ /, ''))),
    ...[...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1]!),
  ]);
}

/** Every .ts file under a folder of the repo, relative to it. */
const sources = (folder: string): string[] =>
  readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));

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

  // The code cites the rules it implements by page and heading (docs/decisions.md#…): each citation must lead there.
  it('cited by src/ comments (docs/<page>.md#<anchor>) are headings those pages have', () => {
    const broken: string[] = [];
    for (const file of sources('src')) {
      for (const [citation, page, anchor] of readFileSync(join(ROOT, file), 'utf8').matchAll(/docs\/([\w-]+\.md)#([\w-]+)/g)) {
        const path = `docs/${page}`;
        if (!existsSync(join(ROOT, path)) || !anchors(path).has(anchor!)) broken.push(`${file}: ${citation}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
