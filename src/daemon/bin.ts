#!/usr/bin/env node
// The package's command line: `nest-turn-status` starts the daemon.
import { main } from './main.js';

void main();
