// nest-turn-status/acp: drive any Agent Client Protocol agent process.

export { AcpEngine } from './acp.engine.js';
