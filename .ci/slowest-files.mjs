// Prints the N slowest test files of a vitest JSON report: where the suite's time goes.
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const [reportPath, count = "10"] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportPath, "utf8"));
const files = report.testResults
  .map((file) => ({ name: relative(process.cwd(), file.name), ms: file.endTime - file.startTime }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, Number(count));
process.stdout.write(`== the ${files.length} slowest test files\n`);
for (const file of files) process.stdout.write(`${(file.ms / 1000).toFixed(1).padStart(8)} s  ${file.name}\n`);
