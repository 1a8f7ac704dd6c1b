import { createCustody } from "@mp/custody";
import { PublicKey } from "@solana/web3.js";
import { address as bitcoinAddress, networks } from "bitcoinjs-lib";
import bs58check from "bs58check";
import { isAddress } from "viem";
import { describe, expect, it } from "vitest";
import { TEST_JUNK_MNEMONIC } from "../../packages/custody/test/support.ts";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";

const WALLETS = 10_000;

describe(`${WALLETS} wallets`, () => {
  // ~3 ms of pure-JS elliptic-curve arithmetic per wallet on a small VM: give it room under load.
  it("are unique per chain and valid in each chain's encoding", { timeout: 240_000 }, () => {
    const custody = createCustody(TEST_JUNK_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    const seen = new Map<string, Set<string>>();
    for (let index = 0; index < WALLETS; index++) {
      // Spread over a few merchant accounts, as a real deployment is.
      const destinations = custody.deriveWalletAddresses(index % 4, Math.floor(index / 4));
      expect(destinations).toHaveLength(10);
      for (const { chain, address, addressKey } of destinations) {
        let addresses = seen.get(chain);
        if (!addresses) {
          addresses = new Set();
          seen.set(chain, addresses);
        }
        addresses.add(addressKey);
        switch (chain) {
          case "TRON": {
            expect(address.startsWith("T")).toBe(true);
            const payload = bs58check.decode(address); // throws on a bad checksum
            expect(payload.length === 21 && payload[0] === 0x41).toBe(true);
            break;
          }
          case "BITCOIN":
            // Throws unless it is a valid regtest address; P2WPKH is OP_0 <20 bytes>.
            expect(bitcoinAddress.toOutputScript(address, networks.regtest).length).toBe(22);
            break;
          case "SOLANA":
            expect(new PublicKey(address).toBytes().length).toBe(32);
            break;
          case "BASE":
            expect(isAddress(address, { strict: true })).toBe(true);
            expect(addressKey).toBe(address.toLowerCase());
            break;
          default:
            // The other six EVM chains share BASE's address (checked strictly once per wallet above).
            expect(address).toBe(destinations[0]?.address);
        }
      }
    }
    expect(seen.size).toBe(10);
    for (const addresses of seen.values()) expect(addresses.size).toBe(WALLETS);
  });
});
