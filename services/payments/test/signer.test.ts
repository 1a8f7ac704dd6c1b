import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig, silentLogger } from "@mp/core";
import { createCustody, createTreasuryKeys } from "@mp/custody";
import { afterAll, describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../src/chain-families.ts";
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
    const expected = createTreasuryKeys(treasury, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    expect(keys.fingerprint).toBe(expected.fingerprint);
    expect(keys.key("bitcoin").address).toBe(expected.key("bitcoin").address);
  });

  it("takes PAYMENTS_TEST_HALT_AFTER in a sandbox only, and only its four stages", () => {
    const sandbox = loadConfig({ DATA_DIR: dir, MASTER_MNEMONIC: master, TREASURY_MNEMONIC: treasury });
    for (const stage of ["signed", "stored", "broadcast", "mined"]) {
      expect(openTreasuryKeys(sandbox, {}, silentLogger(), { PAYMENTS_TEST_HALT_AFTER: stage }).halt).toBe(stage);
    }
    expect(() => openTreasuryKeys(sandbox, {}, silentLogger(), { PAYMENTS_TEST_HALT_AFTER: "later" })).toThrow(
      new ConfigError("PAYMENTS_TEST_HALT_AFTER", "must be one of signed, stored, broadcast, mined"),
    );
    const production = loadConfig({ DATA_DIR: dir, PAYMENTS_ENV: "production" });
    expect(() => openTreasuryKeys(production, {}, silentLogger(), { PAYMENTS_TEST_HALT_AFTER: "signed" })).toThrow(
      new ConfigError("PAYMENTS_TEST_HALT_AFTER", "is a test hook; refused when PAYMENTS_ENV=production"),
    );
  });

  it("holds the deposit addresses' keys (MASTER_MNEMONIC) and the sweep settings, refusing bad ones", () => {
    const config = loadConfig({ DATA_DIR: dir, MASTER_MNEMONIC: master, TREASURY_MNEMONIC: treasury });
    const { depositKeys, sweeps } = openTreasuryKeys(config, {}, silentLogger(), {
      SWEEP_THRESHOLDS: "USDC=250, ETH=0.5",
      SWEEP_INTERVAL_SECONDS: "30",
    });
    const custody = createCustody(master, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    expect(depositKeys.key("evm", 3, 7).address).toBe(custody.deriveAddress("BASE", 3, 7).address);
    expect(sweeps.thresholds).toEqual({ USDC: "250", ETH: "0.5" });
    expect(sweeps.intervalMs).toBe(30_000);
    expect(openTreasuryKeys(config, {}, silentLogger(), {}).sweeps.intervalMs).toBe(10_000);
    expect(() => openTreasuryKeys(config, {}, silentLogger(), { SWEEP_THRESHOLDS: "USDC:100" })).toThrow(ConfigError);
    expect(() => openTreasuryKeys(config, {}, silentLogger(), { SWEEP_INTERVAL_SECONDS: "0" })).toThrow(ConfigError);
  });
});
