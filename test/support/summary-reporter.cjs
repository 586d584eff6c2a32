// Ends every run with plain lines any CI can read without knowing Jest's own summary format: the slowest files
// (where a run's time goes; `SLOWEST=n` for more or fewer, 0 for none), each failed test as "failed: <file> › <name>"
// (.ci/run copies them into its summary, which CI shows whole), then "tests: N passed, N failed".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const count = Number(process.env.SLOWEST ?? 10);
    const files = results.testResults
      .map((file) => ({ path: file.testFilePath.replace(`${process.cwd()}/`, ''), s: (file.perfStats.end - file.perfStats.start) / 1000 }))
      .sort((a, b) => b.s - a.s);
    if (count > 0 && files.length > 1) {
      for (const { path, s } of files.slice(0, count)) process.stdout.write(`slowest: ${s.toFixed(1)} s ${path}\n`);
    }
    for (const file of results.testResults) {
      const path = file.testFilePath.replace(`${process.cwd()}/`, '');
      if (file.testExecError)
        process.stdout.write(`failed: ${path} (the file did not run: ${file.testExecError.message.split('\n')[0]})\n`);
      for (const test of file.testResults) if (test.status === 'failed') process.stdout.write(`failed: ${path} › ${test.fullName}\n`);
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : '');
    process.stdout.write(`${line}\n`);
  }
}
module.exports = SummaryReporter;
