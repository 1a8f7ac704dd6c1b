import { createCustody, createTreasuryKeys } from "@mp/custody";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";

// anvil's and hardhat's public dev mnemonic: m/44'/60'/0'/0/0 is its well-known first account.
const DEV_MNEMONIC = "test test test test test test test test test test test junk";

describe("treasury keys", () => {
  const keys = createTreasuryKeys(DEV_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });

  it("derives the EVM treasury key at m/44'/60'/0'/0/0 (the public dev vector)", () => {
    const evm = keys.evm();
    expect(evm.path).toBe("m/44'/60'/0'/0/0");
    expect(evm.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    const hex = `0x${Buffer.from(evm.privateKey).toString("hex")}` as const;
    expect(privateKeyToAccount(hex).address).toBe(evm.address);
  });

  it("uses the standard account-0 paths: the same addresses as account 0, index 0 of a receive deriver", () => {
    // Same seed on purpose here only: in a deployment the treasury's seed is another mnemonic.
    const custody = createCustody(DEV_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    expect(keys.tron().address).toBe(custody.deriveAddress("TRON", 0, 0).address);
    expect(keys.bitcoin(0, 0).address).toBe(custody.deriveAddress("BITCOIN", 0, 0).address);
    expect(keys.solana().address).toBe(custody.deriveAddress("SOLANA", 0, 0).address);
    expect(keys.bitcoin(1, 3).path).toBe("m/84'/1'/0'/1/3");
    expect(keys.bitcoin(1, 3).address).not.toBe(keys.bitcoin(1, 4).address);
  });

  it("refuses a bad mnemonic naming TREASURY_MNEMONIC, without its words", () => {
    expect(() => createTreasuryKeys("test test test", { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES })).toThrow(
      /TREASURY_MNEMONIC/,
    );
  });
});
