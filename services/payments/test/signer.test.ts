import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys } from "@mp/custody";
import { afterAll, describe, expect, it } from "vitest";
import { openTreasuryKeys } from "../src/signer.ts";

const dir = mkdtempSync(join(tmpdir(), "signer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("openTreasuryKeys (the signer's secrets)", () => {
  const master = "legal winner thank year wave sausage worth useful legal winner thank yellow";
  const treasury = "letter advice cage absurd amount doctor acoustic avoid letter advice cage above";

  it("derives the treasury's keys from TREASURY_MNEMONIC for the chains' Bitcoin network", () => {
    const config = loadConfig({ DATA_DIR: dir, MASTER_MNEMONIC: master, TREASURY_MNEMONIC: treasury });
    const { keys, halt } = openTreasuryKeys(config, {}, silentLogger(), {});
    expect(halt).toBeUndefined();
    const expected = createTreasuryKeys(treasury, { bitcoinNetwork: "regtest" });
    expect(keys.fingerprint).toBe(expected.fingerprint);
    expect(keys.bitcoin(0, 0).address).toBe(expected.bitcoin(0, 0).address);
  });

  it("takes PAYMENTS_TEST_HALT_AFTER in a sandbox only, and only its two stages", () => {
    const sandbox = loadConfig({ DATA_DIR: dir, MASTER_MNEMONIC: master, TREASURY_MNEMONIC: treasury });
    expect(openTreasuryKeys(sandbox, {}, silentLogger(), { PAYMENTS_TEST_HALT_AFTER: "broadcast" }).halt).toBe(
      "broadcast",
    );
    expect(() => openTreasuryKeys(sandbox, {}, silentLogger(), { PAYMENTS_TEST_HALT_AFTER: "later" })).toThrow(
      new ConfigError("PAYMENTS_TEST_HALT_AFTER", "must be signed or broadcast"),
    );
    const production = loadConfig({ DATA_DIR: dir, PAYMENTS_ENV: "production" });
    expect(() => openTreasuryKeys(production, {}, silentLogger(), { PAYMENTS_TEST_HALT_AFTER: "signed" })).toThrow(
      new ConfigError("PAYMENTS_TEST_HALT_AFTER", "is a test hook; refused when PAYMENTS_ENV=production"),
    );
  });
});
