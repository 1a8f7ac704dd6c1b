import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The TypeScript sources below `dir` (none when it does not exist), without declaration files,
 * node_modules or build output: what the deploy tests read for family branches and import circles.
 */
export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}
