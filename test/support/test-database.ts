import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll } from "vitest";
import { late } from "./late.ts";

/**
 * A fresh database for the calling test file (see createTestDatabase), created in its beforeAll and
 * dropped in its afterAll. `db` and `connectionString` are read inside tests, once beforeAll has run.
 */
export function useTestDatabase(options: { migrate?: boolean } = {}): TestDatabase {
  let started: TestDatabase | undefined;
  beforeAll(async () => {
    started = await createTestDatabase(options);
  });
  afterAll(async () => {
    await started?.drop();
  });
  return late("the test database", () => started);
}

/** An empty temporary directory for the calling test file, removed with everything in it after the file. */
export function useTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
