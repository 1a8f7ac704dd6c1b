import { CHAIN_IDS, chainFamily } from "@mp/core";
import { createCustody, createDepositKeys } from "@mp/custody";
import { describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";

const MNEMONIC = "test test test test test test test test test test test junk";

describe("createDepositKeys", () => {
  const custody = createCustody(MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  const keys = createDepositKeys(MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });

  it("gives the private key of exactly the receive address custody derives, on every chain", () => {
    for (const [account, index] of [
      [0, 0],
      [3, 17],
      [41, 2_000_000],
    ] as const) {
      for (const chain of CHAIN_IDS) {
        const derived = custody.deriveAddress(chain, account, index);
        const key = keys.key(chainFamily(chain), account, index);
        expect(key.address).toBe(derived.address);
        expect(key.path).toBe(derived.path);
        expect(keys.forPath(chainFamily(chain), derived.path).address).toBe(derived.address);
      }
    }
    expect(keys.fingerprint).toBe(custody.fingerprint);
  });

  it("refuses a path that is not a receive path of the family", () => {
    expect(() => keys.forPath("evm", "m/44'/195'/0'/0/0")).toThrow(/receive path/);
    expect(() => keys.forPath("evm", "m/44'/60'/0'/1/0")).toThrow(/receive path/);
    expect(() => keys.forPath("solana", "m/44'/60'/0'/0/0")).toThrow(/receive path/);
  });
});
