#!/usr/bin/env node
// Checks that a move of README text into docs/ lost nothing: every paragraph (and every code line) of
// README.md at a git ref must appear, up to wrapping, heading level and link targets, in README.md or docs/*.md.
// Usage: node scripts/docs-moved.mjs [ref]   (default: the commit before docs/ was split out, 0e2df00)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ref = process.argv[2] ?? '0e2df00';
const root = join(import.meta.dirname, '..');
const old = execFileSync('git', ['show', `${ref}:README.md`], { cwd: root, encoding: 'utf8' });

/** One line as compared: no heading marks outside code, no link targets, no line wrapping. */
const plain = (line, inCode) =>
  (inCode ? line : line.replace(/^#{1,6} /, ''))
    .replace(/\]\([^)]*\)/g, ']()')
    .replace(/\s+/g, ' ')
    .trim();

/** The chunks to look for: prose paragraphs whole, code blocks line by line. */
function chunks(text) {
  const out = [];
  let paragraph = [];
  let inCode = false;
  const flush = () => {
    if (paragraph.length) out.push(paragraph.join(' ').replace(/\s+/g, ' ').trim());
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) {
      flush();
      inCode = !inCode;
      continue;
    }
    if (inCode) {
      if (line.trim()) out.push(plain(line, true));
    } else if (!line.trim()) flush();
    else paragraph.push(plain(line, false));
  }
  flush();
  return out.filter(Boolean);
}

const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];
const corpus = pages.map((page) => chunks(readFileSync(join(root, page), 'utf8')).join(' ')).join(' ');
const missing = chunks(old).filter((chunk) => !corpus.includes(chunk));
for (const chunk of missing) console.log(`missing: ${chunk.slice(0, 160)}`);
console.log(`${chunks(old).length} chunks of README.md at ${ref}; ${missing.length} not found in README.md + docs/*.md`);
process.exitCode = missing.length ? 1 : 0;
