/** Where the copy that loaded first registers itself (one per process, whatever the build). */
const REGISTRY = Symbol.for('nest-turn-status.loaded-copy');

/**
 * The file this copy runs from, read off the stack of its own evaluation: the
 * same when the copy is evaluated again (`jest.resetModules()`, hot reload),
 * another for the other build or another installed copy.
 */
const THIS_COPY = /\(?((?:file:\/\/)?[^\s()]+?):\d+:\d+\)?$/.exec(new Error().stack?.split('\n')[1]?.trim() ?? '')?.[1];

/**
 * Refuses a second copy of the package in one process — its ESM and
 * CommonJS builds both loaded (the dual-package hazard), or two installed
 * copies: each would have injection tokens of its own (`TurnsModule`,
 * `BridgeOverlayProvider`, …), and Nest would not match one with the other.
 * Called by every entry point that declares tokens; the client has none.
 */
export function assertSingleCopy(): void {
  if (THIS_COPY === undefined) return; // no stack to tell copies apart: nothing is refused
  const registry = globalThis as { [REGISTRY]?: string };
  const first = (registry[REGISTRY] ??= THIS_COPY);
  if (first === THIS_COPY) return;
  throw new Error(
    `nest-turn-status is loaded twice in this process (its ESM and CommonJS builds, or two installed copies: ${first} and ${THIS_COPY}): ` +
      'its injection tokens would exist twice. Load it one way only (all import, or all require) and install one copy.',
  );
}
