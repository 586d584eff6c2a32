// nest-turn-status/acp: drive any Agent Client Protocol agent process.

import { assertSingleCopy } from '../common/single-copy.js';

// One copy of the injection tokens per process (see assertSingleCopy).
assertSingleCopy();

export { AcpEngine } from './acp.engine.js';
