import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChainConfigInput } from "@mp/core";

/**
 * Writes `chains` as a CHAINS_CONFIG file (`{ "chains": { ... } }`) named `name` in `dir`, as an
 * operator gives it to `payments`; answers its path.
 */
export function writeChainsConfig(dir: string, chains: Record<string, ChainConfigInput>, name = "chains.json"): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ chains }));
  return file;
}
