#!/usr/bin/env node
// The package's command line. Without a command it starts the daemon (`serve`, the default command), as `npm start` does.
import { runCli } from './cli.js';

runCli(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
