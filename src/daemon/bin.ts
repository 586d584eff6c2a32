#!/usr/bin/env node
// The package's command line. Without a command it starts the daemon, as `npm start` does.
import { runCli } from './cli.js';

const argv = process.argv.slice(2);
const known = new Set(['serve', 'prompt', 'wait', 'status', 'help', '--help', '-h']);
runCli(argv.length === 0 || !known.has(argv[0]!) ? ['serve', ...argv] : argv).then((code) => {
  if (code >= 0) process.exitCode = code;
});
