import { bitcoinKeyScheme } from "@mp/chain-bitcoin";
import { evmKeyScheme } from "@mp/chain-evm";
import { solanaKeyScheme } from "@mp/chain-solana";
import { tronKeyScheme } from "@mp/chain-tron";
import { createCustody } from "@mp/custody";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { address as bitcoinAddress } from "bitcoinjs-lib";
import { HDKey as Ed25519HDKey } from "micro-ed25519-hdkey";
import { bytesToHex, hexToBytes } from "viem";
import { describe, expect, it } from "vitest";
import { derivePublicChild, toExtendedPublicKey } from "../../packages/custody/src/secp256k1-public-child.ts";
import { ABANDON_MNEMONIC, addressOf, TEST_JUNK_MNEMONIC } from "../../packages/custody/test/support.ts";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";

const abandon = createCustody(ABANDON_MNEMONIC, { bitcoinNetwork: "mainnet", schemes: KEY_SCHEMES });
const junk = createCustody(TEST_JUNK_MNEMONIC, { bitcoinNetwork: "mainnet", schemes: KEY_SCHEMES });

describe("published vectors, account 0", () => {
  it("EVM m/44'/60'/0'/0/i", () => {
    // "test … junk" is the Hardhat/anvil development mnemonic on path m/44'/60'/0'/0/i; its accounts
    // (0) and (1) are listed under "Available Accounts" in https://getfoundry.sh/anvil
    expect(addressOf(junk, "ETHEREUM", 0, 0)).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(addressOf(junk, "ETHEREUM", 0, 1)).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    // "abandon … about" (BIP-39 vector 1, https://github.com/trezor/python-mnemonic/blob/master/vectors.json):
    // the first two BIP-44 Ethereum addresses every BIP-44 wallet shows for it; the same pair is
    // asserted by many independent wallet test suites (GitHub code search).
    expect(addressOf(abandon, "ETHEREUM", 0, 0)).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
    expect(addressOf(abandon, "ETHEREUM", 0, 1)).toBe("0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0");
  });

  it("gives all seven EVM chains the same address", () => {
    const evm = junk
      .deriveWalletAddresses(0, 0)
      .filter((d) => d.chain !== "SOLANA" && d.chain !== "BITCOIN" && d.chain !== "TRON");
    expect(evm.map((d) => d.chain)).toEqual(["BASE", "ARBITRUM", "POLYGON", "CELO", "BSC", "ETHEREUM", "OPTIMISM"]);
    for (const d of evm) {
      expect(d.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
      expect(d.addressKey).toBe("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
      expect(d.path).toBe("m/44'/60'/0'/0/0");
    }
  });

  it("BITCOIN m/84'/0'/0'/0/i on mainnet", () => {
    // BIP-84's own test vectors: https://github.com/bitcoin/bips/blob/master/bip-0084.mediawiki#test-vectors
    expect(addressOf(abandon, "BITCOIN", 0, 0)).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
    expect(addressOf(abandon, "BITCOIN", 0, 1)).toBe("bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g");
    // "test … junk" BIP-84 address 0, corroborated by independent wallet test suites (GitHub code search).
    expect(addressOf(junk, "BITCOIN", 0, 0)).toBe("bc1q4qw42stdzjqs59xvlrlxr8526e3nunw7mp73te");
  });

  it("TRON m/44'/195'/0'/0/i", () => {
    // Ledger's Tron app test script expects this address for "abandon … about" at 44'/195'/0'/0/0:
    // https://github.com/klever-io/trx-ledger/blob/master/test_getPublicKey.py
    expect(addressOf(abandon, "TRON", 0, 0)).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
    // Index 1, and "test … junk" index 0 (TronLink/TronWeb fromMnemonic default path), corroborated by
    // independent wallet test suites (GitHub code search).
    expect(addressOf(abandon, "TRON", 0, 1)).toBe("TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK");
    expect(addressOf(junk, "TRON", 0, 0)).toBe("TWer2Ygk5TEheHp3TPuYeqxmB6SsGZmaL6");
  });

  it("SOLANA m/44'/501'/0'/i'", () => {
    // Phantom/Solflare/solana-keygen's first account m/44'/501'/0'/0' for "abandon … about" and for
    // "test … junk", corroborated by independent wallet test suites (GitHub code search). The
    // SLIP-0010 algorithm itself is pinned to the spec's vector further down.
    expect(addressOf(abandon, "SOLANA", 0, 0)).toBe("HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk");
    expect(addressOf(junk, "SOLANA", 0, 0)).toBe("oeYf6KAJkLYhBuR8CiGc6L4D4Xtfepr85fuDgA9kq96");
    // Index 1 is m/44'/501'/0'/1' (the path Solana's CLI calls "?key=0/1").
    expect(abandon.deriveAddress("SOLANA", 0, 1)).toEqual({
      address: "GKreMsHvt8A79VApjboYDq3J4ZCXSJRYYQk9BscMbi1H",
      addressKey: "GKreMsHvt8A79VApjboYDq3J4ZCXSJRYYQk9BscMbi1H",
      path: "m/44'/501'/0'/1'",
    });
  });

  it("records the root fingerprint", () => {
    // 73c5da0a is the master fingerprint of "abandon … about" shown with BIP-84's zpub vectors.
    expect(abandon.fingerprint).toBe("73c5da0a");
    expect(junk.fingerprint).toMatch(/^[0-9a-f]{8}$/);
    expect(junk.fingerprint).not.toBe(abandon.fingerprint);
  });
});

describe("bitcoin networks", () => {
  it("uses coin type 1' and tb1q on testnet, bcrt1q on regtest, with the same witness program", () => {
    const testnet = createCustody(ABANDON_MNEMONIC, { bitcoinNetwork: "testnet", schemes: KEY_SCHEMES });
    const regtest = createCustody(ABANDON_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    // m/84'/1'/0'/0/0 of "abandon … about" (corroborated by independent wallet test suites).
    expect(testnet.deriveAddress("BITCOIN", 0, 0)).toEqual({
      address: "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl",
      addressKey: "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl",
      path: "m/84'/1'/0'/0/0",
    });
    const onRegtest = regtest.deriveAddress("BITCOIN", 0, 0);
    expect(onRegtest.address).toBe("bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk");
    expect(onRegtest.path).toBe("m/84'/1'/0'/0/0");
    expect(bitcoinAddress.fromBech32(onRegtest.address).data).toEqual(
      bitcoinAddress.fromBech32("tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl").data,
    );
    expect(regtest.deriveAddress("BITCOIN", 0, 1).address).toMatch(/^bcrt1q/);
    // The other chains do not depend on the Bitcoin network.
    expect(regtest.deriveAddress("BASE", 0, 0)).toEqual(abandon.deriveAddress("BASE", 0, 0));
    expect(regtest.deriveAddress("SOLANA", 0, 0)).toEqual(abandon.deriveAddress("SOLANA", 0, 0));
  });
});

describe("merchant accounts", () => {
  it("derives different addresses for account 1, on its own paths", () => {
    const account0 = junk.deriveWalletAddresses(0, 0);
    const account1 = junk.deriveWalletAddresses(1, 0);
    for (const [i, d] of account1.entries()) {
      expect(d.address).not.toBe(account0[i]?.address);
    }
    expect(account1.map((d) => d.path)).toEqual([
      ...Array(7).fill("m/44'/60'/1'/0/0"),
      "m/44'/501'/1'/0'",
      "m/84'/0'/1'/0/0",
      "m/44'/195'/1'/0/0",
    ]);
  });

  it("rejects accounts and indexes outside BIP-32 child numbers", () => {
    expect(() => junk.deriveWalletAddresses(-1, 0)).toThrow(/account/);
    expect(() => junk.deriveAddress("BASE", 0, 2 ** 31)).toThrow(/index/);
    expect(() => junk.deriveAddress("SOLANA", 0.5, 0)).toThrow(/account/);
  });
});

describe("derivation from the account xpub", () => {
  const seed = mnemonicToSeedSync(TEST_JUNK_MNEMONIC);
  const root = HDKey.fromMasterSeed(seed);
  const ed25519Root = Ed25519HDKey.fromMasterSeed(seed);

  it("gives the address of the full private-key path", () => {
    const regtest = createCustody(TEST_JUNK_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    for (const [account, index] of [
      [0, 0],
      [0, 7],
      [3, 41],
      [250, 1_000_000],
    ] as const) {
      const evmKey = root.derive(`m/44'/60'/${account}'/0/${index}`);
      const tronKey = root.derive(`m/44'/195'/${account}'/0/${index}`);
      const bitcoinKey = root.derive(`m/84'/1'/${account}'/0/${index}`);
      const solanaKey = ed25519Root.derive(`m/44'/501'/${account}'/${index}'`);
      // The private path: every level derived with its private key, the public key computed last.
      expect(evmKey.privateKey).not.toBeNull();
      const expected = {
        BASE: evmKeyScheme.address(toExtendedPublicKey(evmKey), "regtest"),
        TRON: tronKeyScheme.address(toExtendedPublicKey(tronKey), "regtest"),
        BITCOIN: bitcoinKeyScheme.address(toExtendedPublicKey(bitcoinKey), "regtest"),
        SOLANA: solanaKeyScheme.address(solanaKey.publicKeyRaw),
      };
      for (const [chain, address] of Object.entries(expected)) {
        expect(regtest.deriveAddress(chain as keyof typeof expected, account, index).address).toBe(address);
      }
    }
  });

  it("matches @scure/bip32's own public derivation", () => {
    const chainNode = HDKey.fromExtendedKey(root.derive("m/44'/60'/5'/0").publicExtendedKey);
    expect(chainNode.privateKey).toBeNull();
    const xpub = toExtendedPublicKey(chainNode);
    for (const index of [0, 1, 2, 99, 4_096, 2 ** 31 - 1]) {
      expect(bytesToHex(derivePublicChild(xpub, index).publicKey)).toBe(
        bytesToHex(chainNode.deriveChild(index).publicKey ?? new Uint8Array()),
      );
    }
  });

  it("follows BIP-32 CKDpub on the spec's test vectors", () => {
    // https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#test-vector-2 (also SLIP-0010
    // "Test vector 2 for secp256k1"): chain m -> m/0 is a non-hardened, public derivation.
    const master = {
      publicKey: hexToBytes("0x03cbcaa9c98c877a26977d00825c956a238e8dddfbd322cce4f74b0b5bd6ace4a7"),
      chainCode: hexToBytes("0x60499f801b896d83179a4374aeb7822aaeaceaa0db1f85ee3e904c4defbd9689"),
    };
    const masterXpub = toExtendedPublicKey(new HDKey(master));
    expect(bytesToHex(derivePublicChild(masterXpub, 0).publicKey)).toBe(
      "0x02fc9e5af0ac8d9b3cecfe2a888e2117ba3d089d8585886c9c826b6b22a98d12ea",
    );
    // Test vector 1: m/0H/1/2H -> m/0H/1/2H/2.
    const node = toExtendedPublicKey(
      new HDKey({
        publicKey: hexToBytes("0x0357bfe1e341d01c69fe5654309956cbea516822fba8a601743a012a7896ee8dc2"),
        chainCode: hexToBytes("0x04466b9cc8e161e966409ca52986c584f07e9dc81f735db683c3ff6ec7b1503f"),
      }),
    );
    expect(bytesToHex(derivePublicChild(node, 2).publicKey)).toBe(
      "0x02e8445082a72f29b75ca48748a914df60622a609cacfce8ed0e35804560741d29",
    );
  });

  it("follows SLIP-0010 for ed25519", () => {
    // https://github.com/satoshilabs/slips/blob/master/slip-0010.md "Test vector 1 for ed25519".
    const node = Ed25519HDKey.fromMasterSeed("000102030405060708090a0b0c0d0e0f").derive("m/0'/1'");
    expect(bytesToHex(node.publicKey)).toBe("0x001932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187");
  });
});
