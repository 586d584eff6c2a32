// nest-turn-status/testing: in-memory ports, a scripted engine and an app
// builder for a host's supertest e2e. Never loaded by the other layers.

import { assertSingleCopy } from '../common/single-copy.js';

// One copy of the injection tokens per process (see assertSingleCopy).
assertSingleCopy();

export { InMemoryBridgeOverlay, type InMemoryBridgeOverlayOptions } from './in-memory-bridge-overlay.js';
export type { InMemoryPermissionRequest } from './in-memory-permission-requests.js';
export { InMemoryTranscriptScan, type HeldScan } from './in-memory-transcript-scan.js';
export { ScriptedEngine, type ScriptedTurn } from './scripted-engine.js';
export {
  createTurnsTestingApp,
  type HostTurnsTestingApp,
  type HostTurnsTestingAppOptions,
  type TurnsTestingApp,
  type TurnsTestingAppOptions,
} from './create-turns-testing-app.js';
export { principalFromTestHeader, TEST_PRINCIPAL_HEADER } from './test-principal.js';
