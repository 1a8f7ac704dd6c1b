import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll } from "vitest";
import { useStarted } from "./use-started.ts";

/**
 * A fresh database for the calling test file (see createTestDatabase), created in its beforeAll and
 * dropped in its afterAll. `db` and `connectionString` are read inside tests, once beforeAll has run.
 */
export function useTestDatabase(options: { migrate?: boolean } = {}): TestDatabase {
  return useStarted(
    "the test database",
    () => createTestDatabase(options),
    (database) => database.drop(),
  );
}

/** An empty temporary directory for the calling test file, removed with everything in it after the file. */
export function useTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
