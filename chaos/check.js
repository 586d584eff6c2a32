#!/usr/bin/env node
// @ts-check
// node chaos/check.js <run dir> [--json]: checks one chaos run (CHAOS-HISTORY.md), prints the report (or the whole
// result as JSON), and exits 1 when any property has a violation (2 when the run cannot be read).
import { checkRun, formatReport } from './checker/index.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const dir = args.find((arg) => !arg.startsWith('--'));
if (!dir) {
  console.error('usage: node chaos/check.js <.chaos/seed-index> [--json]');
  process.exit(2);
}
let result;
try {
  result = checkRun(dir);
} catch (error) {
  console.error(`cannot check ${dir}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
console.log(json ? JSON.stringify(result, null, 2) : formatReport(result));
process.exitCode = result.ok ? 0 : 1;
