// Mocha's spec reporter plus the closing line CI reads: "N passed, N failed".
// With TEST_TIMINGS=N it also prints the N slowest test files (hooks included) before that line,
// to keep the suite's time in view. A .cjs file because mocha loads reporters with require().
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const top = Number(process.env.TEST_TIMINGS ?? 0);
    const started = new Map();
    const spent = new Map();
    if (top > 0) {
      runner.on(EVENT_SUITE_BEGIN, (suite) => {
        if (suite.file && suite.parent?.root) started.set(suite, Date.now());
      });
      runner.on(EVENT_SUITE_END, (suite) => {
        const t = started.get(suite);
        if (t === undefined) return;
        spent.set(suite.file, (spent.get(suite.file) ?? 0) + Date.now() - t);
      });
    }
    runner.once(EVENT_RUN_END, () => {
      if (top > 0) {
        const rows = [...spent].sort((a, b) => b[1] - a[1]);
        const total = rows.reduce((s, [, ms]) => s + ms, 0);
        process.stdout.write(`\nslowest test files (of ${(total / 1000).toFixed(0)} s in files):\n`);
        for (const [file, ms] of rows.slice(0, top))
          process.stdout.write(`${(ms / 1000).toFixed(1).padStart(7)} s  ${require('node:path').relative(process.cwd(), file)}\n`);
      }
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`);
    });
  }
}

module.exports = SummaryReporter;
