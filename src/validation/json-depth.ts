/** Deepest nesting a request body may have; deeper → `400 invalid_json`. */
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of a parsed JSON value (a scalar is 0, `[]` is 1),
 * computed without recursion so a hostile value cannot exhaust the stack;
 * stops counting past `limit`.
 */
export function jsonDepth(value: unknown, limit = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, here]);
  }
  return deepest;
}
