import { inspect } from "node:util";
import { ConfigError } from "@mp/core";
import { createCustody } from "@mp/custody";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { bytesToHex } from "viem";
import { describe, expect, it } from "vitest";
import { ABANDON_MNEMONIC, TEST_JUNK_MNEMONIC } from "../../packages/custody/test/support.ts";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";

describe("the Custody object", () => {
  const custody = createCustody(TEST_JUNK_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  // Warm every cache so that any key material the object holds exists by now.
  custody.deriveWalletAddresses(0, 0);
  custody.deriveWalletAddresses(1, 5);

  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_JUNK_MNEMONIC));
  const secrets = [
    "test test",
    bytesToHex(mnemonicToSeedSync(TEST_JUNK_MNEMONIC)).slice(2),
    root.privateExtendedKey,
    // anvil's published private key of account (0), m/44'/60'/0'/0/0.
    "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    bytesToHex(root.derive("m/44'/60'/0'/0").privateKey ?? new Uint8Array()).slice(2),
    "xprv",
  ];

  it("shows only its fingerprint to JSON, inspection and enumeration", () => {
    expect(JSON.parse(JSON.stringify(custody))).toEqual({ fingerprint: custody.fingerprint });
    expect(Object.keys(custody).sort()).toEqual([
      "accountPublicKeys",
      "deriveAddress",
      "deriveWalletAddresses",
      "fingerprint",
      "receivePosition",
    ]);
    const views = [
      JSON.stringify(custody),
      inspect(custody, { showHidden: true, depth: Number.POSITIVE_INFINITY, getters: true }),
      String(custody),
      JSON.stringify(custody.deriveWalletAddresses(2, 3)),
    ];
    for (const view of views) {
      for (const secret of secrets) expect(view).not.toContain(secret);
    }
  });

  it("cannot be given a property that would leak later", () => {
    expect(Object.isFrozen(custody)).toBe(true);
    expect(() => Object.assign(custody, { toJSON: () => "x" })).toThrow(TypeError);
  });

  it("returns destinations with nothing but chain, address, key and path", () => {
    for (const destination of custody.deriveWalletAddresses(0, 1)) {
      expect(Object.keys(destination).sort()).toEqual(["address", "addressKey", "chain", "path"]);
    }
  });
});

describe("createCustody", () => {
  it("refuses an invalid mnemonic without echoing it", () => {
    const badChecksum = ABANDON_MNEMONIC.replace(/about$/, "abandon");
    let error: unknown;
    try {
      createCustody(badChecksum, { bitcoinNetwork: "mainnet", schemes: KEY_SCHEMES });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).setting).toBe("MASTER_MNEMONIC");
    expect((error as ConfigError).message).not.toMatch(/abandon/);
  });
});
