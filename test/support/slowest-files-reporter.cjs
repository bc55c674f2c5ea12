// A jest reporter that prints the ten test files that took longest, so CI shows where its time goes.
class SlowestFilesReporter {
  constructor(globalConfig, options = {}) {
    this.count = options.count ?? 10;
  }

  onRunComplete(_contexts, results) {
    const rows = results.testResults
      .map((file) => ({
        seconds: (file.perfStats.end - file.perfStats.start) / 1000,
        path: file.testFilePath.slice(process.cwd().length + 1),
      }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, this.count);
    if (rows.length === 0) return;
    process.stderr.write(`\nSlowest ${rows.length} test files:\n`);
    for (const row of rows) process.stderr.write(`${row.seconds.toFixed(1).padStart(8)} s  ${row.path}\n`);
  }
}

module.exports = SlowestFilesReporter;
