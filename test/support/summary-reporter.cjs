// Ends every run with one plain line, "tests: N passed, N failed", that any CI
// can read without knowing Jest's own summary format.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : '');
    process.stdout.write(`${line}\n`);
  }
}
module.exports = SummaryReporter;
