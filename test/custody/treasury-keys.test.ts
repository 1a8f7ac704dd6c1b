import { createCustody, createTreasuryKeys } from "@mp/custody";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";

// anvil's and hardhat's public dev mnemonic: m/44'/60'/0'/0/0 is its well-known first account.
const DEV_MNEMONIC = "test test test test test test test test test test test junk";

// The dev mnemonic's treasury addresses on regtest, pinned: a key path or encoding change moves funds.
const PINNED_SEND_ADDRESSES = {
  evm: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  tron: "TWer2Ygk5TEheHp3TPuYeqxmB6SsGZmaL6",
  bitcoin: "bcrt1qquv9lg5g2r4jkr0ahun0ddfg5xntxjelwjpnuw",
  solana: "oeYf6KAJkLYhBuR8CiGc6L4D4Xtfepr85fuDgA9kq96",
};
const PINNED_BITCOIN_CHANGE_3 = "bcrt1qa6km49qgnntft37vf9fxc3qx9jjl4hswgpdcfx";

describe("treasury keys", () => {
  const keys = createTreasuryKeys(DEV_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });

  it("derives the EVM treasury key at m/44'/60'/0'/0/0 (the public dev vector)", () => {
    const evm = keys.key("evm");
    expect(evm.path).toBe("m/44'/60'/0'/0/0");
    expect(evm.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    const hex = `0x${Buffer.from(evm.privateKey).toString("hex")}` as const;
    expect(privateKeyToAccount(hex).address).toBe(evm.address);
  });

  it("uses the standard account-0 paths: the same addresses as account 0, index 0 of a receive deriver", () => {
    // Same seed on purpose here only: in a deployment the treasury's seed is another mnemonic.
    const custody = createCustody(DEV_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    expect(keys.key("tron").address).toBe(custody.deriveAddress("TRON", 0, 0).address);
    expect(keys.key("bitcoin").address).toBe(custody.deriveAddress("BITCOIN", 0, 0).address);
    expect(keys.key("solana").address).toBe(custody.deriveAddress("SOLANA", 0, 0).address);
    expect(keys.key("bitcoin", 1, 3).path).toBe("m/84'/1'/0'/1/3");
    expect(keys.key("bitcoin", 1, 3).address).not.toBe(keys.key("bitcoin", 1, 4).address);
  });

  it("pins every family's send key and Bitcoin's change keys (the addresses before the family-agnostic accessor)", () => {
    const pinned = Object.fromEntries(
      (["evm", "tron", "bitcoin", "solana"] as const).map((family) => [family, keys.key(family).address]),
    );
    expect(pinned).toEqual(PINNED_SEND_ADDRESSES);
    expect(keys.key("bitcoin", 1, 3).address).toBe(PINNED_BITCOIN_CHANGE_3);
    expect(keys.key("solana", 0, 0)).toEqual(keys.key("solana"));
  });

  it("has no change branch on ed25519", () => {
    expect(() => keys.key("solana", 1, 0)).toThrow(/no change branch/);
  });

  it("refuses a bad mnemonic naming TREASURY_MNEMONIC, without its words", () => {
    expect(() => createTreasuryKeys("test test test", { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES })).toThrow(
      /TREASURY_MNEMONIC/,
    );
  });
});
