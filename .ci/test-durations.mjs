// Writes .ci/test-durations.json from a vitest JSON report: the longest test files and their
// durations (ms, rounded to the second so a refresh changes few lines), which the suite's sequencer
// (test/support/duration-sequencer.ts) starts first, longest first; the other files follow.
// Paths are from the root of the clone the report was made in (the common directory of its files),
// not from the current directory: a report of a fresh clone elsewhere must give keys like
// `test/e2e/x.test.ts`, or the sequencer matches none of them (it did: every key once began with
// `../fresh.xxxx/`, and the longest file started 60th).
// Usage: node .ci/test-durations.mjs <report.json> [count, default 40]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";

const [reportPath, count = "40"] = process.argv.slice(2);
if (!reportPath) {
  process.stderr.write("usage: node .ci/test-durations.mjs <vitest JSON report> [count]\n");
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, "utf8"));
const names = report.testResults.map((file) => file.name.split("\\").join("/"));
const root = names.map(dirname).reduce((common, dir) => {
  while (dir !== common && !dir.startsWith(`${common}/`)) common = dirname(common);
  return common;
});
const longest = report.testResults
  .map((file, i) => [relative(root, names[i]), Math.round((file.endTime - file.startTime) / 1000) * 1000])
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(count));
writeFileSync(".ci/test-durations.json", `${JSON.stringify(Object.fromEntries(longest), null, 2)}\n`);
process.stdout.write(`.ci/test-durations.json: the ${longest.length} longest files (paths from ${root})\n`);
