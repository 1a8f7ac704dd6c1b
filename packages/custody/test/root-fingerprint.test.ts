import { ConfigError } from "@mp/core";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { ensureRootFingerprint } from "../src/index.ts";
import { openSigningRoots } from "../src/signing-keys.ts";
import { ABANDON_MNEMONIC, TEST_JUNK_MNEMONIC } from "./support.ts";

const testDb = useTestDatabase();

describe("ensureRootFingerprint", () => {
  const first = openSigningRoots("MASTER_MNEMONIC", TEST_JUNK_MNEMONIC);
  const other = openSigningRoots("MASTER_MNEMONIC", ABANDON_MNEMONIC);

  it("records the fingerprint at first start and accepts the same mnemonic again", async () => {
    await Promise.all([
      ensureRootFingerprint(testDb.db, first.fingerprint),
      ensureRootFingerprint(testDb.db, first.fingerprint),
    ]);
    await ensureRootFingerprint(testDb.db, first.fingerprint);
    const { rows } = await testDb.db.query("SELECT root_fingerprint FROM deployment");
    expect(rows).toEqual([{ root_fingerprint: first.fingerprint }]);
  });

  it("refuses a different mnemonic against the existing database", async () => {
    const error = await ensureRootFingerprint(testDb.db, other.fingerprint).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).setting).toBe("MASTER_MNEMONIC");
    expect((error as ConfigError).message).toContain(first.fingerprint);
    expect((error as ConfigError).message).toContain(other.fingerprint);
    expect((error as ConfigError).message).not.toMatch(/abandon|test test/);
    const { rows } = await testDb.db.query("SELECT root_fingerprint FROM deployment");
    expect(rows).toEqual([{ root_fingerprint: first.fingerprint }]);
  });
});
