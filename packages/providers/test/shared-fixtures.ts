import { existsSync, readFileSync } from "node:fs";

/**
 * Recorded real-world answers live beside the repository in ../shared/fixtures (their sources are
 * in each folder's SOURCES.md) and are read at test time, never copied in. Where that folder is
 * absent the tests that need it are skipped, and their titles say so.
 */
export const SHARED_FIXTURES = new URL("../../../../shared/fixtures/", import.meta.url);
export const SHARED_FIXTURES_PRESENT = existsSync(SHARED_FIXTURES);
export const NEEDS_SHARED = SHARED_FIXTURES_PRESENT ? "" : " [skipped: ../shared/fixtures is absent]";

export function sharedFixture(path: string): string {
  return readFileSync(new URL(path, SHARED_FIXTURES), "utf8");
}
