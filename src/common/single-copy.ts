/** Where the copy that loaded first registers itself (one per process, whatever the build). */
const REGISTRY = Symbol.for('nest-turn-status.loaded-copy');
/** This copy: the ESM build, the CommonJS build, or another installed copy are each one. */
const THIS_COPY = {};

/**
 * Refuses a second copy of the package in one process — its ESM and
 * CommonJS builds both loaded (the dual-package hazard), or two installed
 * copies: each would have injection tokens of its own (`TurnsModule`,
 * `BridgeOverlayProvider`, …), and Nest would not match one with the other.
 * Called by every entry point that declares tokens; the client has none.
 */
export function assertSingleCopy(): void {
  const registry = globalThis as { [REGISTRY]?: object };
  if ((registry[REGISTRY] ??= THIS_COPY) === THIS_COPY) return;
  throw new Error(
    'nest-turn-status is loaded twice in this process (its ESM and CommonJS builds, or two installed copies): ' +
      'its injection tokens would exist twice. Load it one way only (all import, or all require) and install one copy.',
  );
}
