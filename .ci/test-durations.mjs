// Writes .ci/test-durations.json from a vitest JSON report: each test file's duration (ms, rounded
// to the second so a refresh changes few lines), which the suite's sequencer
// (test/support/duration-sequencer.ts) uses to start the longest files first.
// Usage: node .ci/test-durations.mjs <report.json> [more reports...]; a file in several reports
// keeps its longest duration.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

const reports = process.argv.slice(2);
if (reports.length === 0) {
  process.stderr.write("usage: node .ci/test-durations.mjs <vitest JSON report> [...]\n");
  process.exit(2);
}
const durations = {};
for (const reportPath of reports) {
  const report = JSON.parse(readFileSync(reportPath, "utf8"));
  for (const file of report.testResults) {
    const name = relative(process.cwd(), file.name).split("\\").join("/");
    const ms = Math.round((file.endTime - file.startTime) / 1000) * 1000;
    durations[name] = Math.max(durations[name] ?? 0, ms);
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(".ci/test-durations.json", `${JSON.stringify(sorted, null, 2)}\n`);
process.stdout.write(`.ci/test-durations.json: ${Object.keys(sorted).length} files\n`);
