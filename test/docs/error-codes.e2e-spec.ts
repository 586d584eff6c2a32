import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOGUE, type ErrorCatalogueEntry } from '../../src/errors/error-catalogue.js';

const ROUTES = join(__dirname, '..', '..', 'docs', 'routes.md');

/** The rows of the Errors table of docs/routes.md, as written. */
function documentedRows(): string[] {
  const text = readFileSync(ROUTES, 'utf8');
  const section = text.slice(text.indexOf('\n## Errors\n'));
  return section.split('\n').filter((line) => line.startsWith('| `'));
}

/** The row the catalogue says `code` has: status (+ Retry-After), default message, details (`?`: only in some bodies). */
function catalogueRow(code: string, entry: ErrorCatalogueEntry): string {
  const details = Object.entries(entry.details ?? {}).map(([name, detail]) => (detail.optional ? `${name}?` : name));
  const status = `${entry.status}${entry.retryAfter === undefined ? '' : ` + \`Retry-After: ${entry.retryAfter}\``}`;
  return `| \`${code}\` | ${status} | ${entry.message} | ${details.length > 0 ? `\`{${details.join(', ')}}\`` : ''} |`;
}

describe('the error codes documented in docs/routes.md', () => {
  it('are the catalogue: every code, in its order, with its status, Retry-After, message and details', () => {
    const expected = Object.entries<ErrorCatalogueEntry>(ERROR_CATALOGUE).map(([code, entry]) => catalogueRow(code, entry));
    expect(documentedRows()).toEqual(expected);
  });
});
