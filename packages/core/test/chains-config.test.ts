import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadChainsConfigFile, parseChainsConfig } from "../src/chains-config.ts";
import { ConfigError } from "../src/errors.ts";

describe("CHAINS_CONFIG", () => {
  it("accepts a file naming one chain: the others stay absent (addresses, no deposits, no indexer)", () => {
    const dir = mkdtempSync(join(tmpdir(), "chains-config-"));
    try {
      const file = join(dir, "chains.json");
      writeFileSync(
        file,
        JSON.stringify({ chains: { BITCOIN: { rpcUrl: "http://127.0.0.1:18443", network: "regtest" } } }),
      );
      const chains = loadChainsConfigFile(file);
      expect(Object.keys(chains)).toEqual(["BITCOIN"]);
      expect(chains.BITCOIN).toMatchObject({ chain: "BITCOIN", network: "regtest", confirmations: 2 });
      expect(chains.ARBITRUM).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("accepts an empty chains object", () => {
    expect(parseChainsConfig({ chains: {} })).toEqual({});
  });

  it("still refuses an unknown chain name and a bad chain entry, naming where", () => {
    const unknown = (() => {
      try {
        parseChainsConfig({ chains: { BASEX: { rpcUrl: "http://127.0.0.1:8545" } } });
      } catch (error) {
        return error;
      }
    })();
    expect(unknown).toBeInstanceOf(ConfigError);
    expect((unknown as ConfigError).message).toMatch(/^CHAINS_CONFIG: invalid chains config at chains/);
    expect(() => parseChainsConfig({ chains: { BASE: { rpcUrl: "not a url" } } })).toThrow(
      /CHAINS_CONFIG: invalid chains config at chains\.BASE\.rpcUrl/,
    );
  });
});
