import { expect } from "vitest";
import type { Client } from "./dashboard-client.ts";

/** Every GET of `paths` by `client` answers `status`; a failure names its path. */
export async function expectGetStatus(client: Client, status: number, paths: readonly string[]): Promise<void> {
  for (const path of paths) expect((await client.call("GET", path)).status, path).toBe(status);
}
