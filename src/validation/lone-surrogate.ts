/**
 * The path (`prompt.0.text`) of the first string in a parsed JSON value — a
 * value or a key — that holds a lone UTF-16 surrogate, or `undefined`. Such a
 * string has no UTF-8 form: echoing it back, or writing it to a transcript,
 * would turn it into U+FFFD. Walks without recursion, like `jsonDepth`.
 */
export function findLoneSurrogate(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (!node.isWellFormed()) return path;
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const entries = Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, child] = entries[i]!;
      const childPath = path === '' ? key : `${path}.${key}`;
      if (!key.isWellFormed()) return childPath;
      stack.push([child, childPath]);
    }
  }
  return undefined;
}
