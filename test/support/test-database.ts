import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll } from "vitest";

/**
 * A fresh database for the calling test file (see createTestDatabase), created in its beforeAll and
 * dropped in its afterAll. `db` and `connectionString` are read inside tests, once beforeAll has run.
 */
export function useTestDatabase(options: { migrate?: boolean } = {}): TestDatabase {
  let started: TestDatabase | undefined;
  const get = () => {
    if (!started) throw new Error("the test database is created in beforeAll: use it inside a test");
    return started;
  };
  beforeAll(async () => {
    started = await createTestDatabase(options);
  });
  afterAll(async () => {
    await started?.drop();
  });
  return {
    get db() {
      return get().db;
    },
    get connectionString() {
      return get().connectionString;
    },
    drop: () => get().drop(),
  };
}

/** An empty temporary directory for the calling test file, removed with everything in it after the file. */
export function useTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
