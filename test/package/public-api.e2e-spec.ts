import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const SRC = join(__dirname, '..', '..', 'src');
const BARRELS = [
  'index.ts',
  'client/index.ts',
  'runtime/index.ts',
  'acp/index.ts',
  'webhooks/index.ts',
  'webhooks/verify.ts',
  'cluster/index.ts',
  'daemon/index.ts',
  'testing/index.ts',
];

/** Every name a barrel exports, with the file that declares it. */
function exportsOf(barrel: string): Array<{ name: string; file: string }> {
  const text = readFileSync(join(SRC, barrel), 'utf8');
  const out: Array<{ name: string; file: string }> = [];
  for (const match of text.matchAll(/export (?:type )?\{([^}]*)\} from '([^']+)'/g)) {
    const file = join(dirname(join(SRC, barrel)), match[2]!.replace(/\.js$/, '.ts'));
    for (const raw of match[1]!.split(',')) {
      const name = raw.replace(/^\s*type\s+/, '').trim();
      if (name) out.push({ name, file });
    }
  }
  return out;
}

/** The last doc comment before the declaration of `name` in `file`, with no other declaration between. */
function docOf(file: string, name: string): string | undefined {
  const text = readFileSync(file, 'utf8');
  const declaration = new RegExp(
    `^export (?:abstract |async |declare )?(?:class|function|const|interface|type) ${name}\\b|^export const \\{[^}]*\\b${name}\\b`,
    'm',
  ).exec(text);
  if (!declaration) return undefined;
  const before = text.slice(0, declaration.index);
  const doc = before.lastIndexOf('/**');
  if (doc < 0 || /^export /m.test(before.slice(doc))) return undefined;
  return before.slice(doc);
}

describe('public API', () => {
  const names = BARRELS.flatMap(exportsOf);

  it('exports names from every layer', () => {
    expect(names.length).toBeGreaterThan(40);
  });

  it.each(names.map(({ name, file }) => [name, file.slice(SRC.length + 1)]))('%s (%s) is marked @publicApi', (name, file) => {
    expect(docOf(join(SRC, file), name)).toMatch(/@publicApi/);
  });
});
