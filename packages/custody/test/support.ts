import type { ChainId } from "@mp/core";
import type { Custody } from "../src/index.ts";

/** BIP-39 test vector 1: public, never holds funds. */
export const ABANDON_MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
/** Hardhat/anvil's development mnemonic: public, never holds funds. */
export const TEST_JUNK_MNEMONIC = "test test test test test test test test test test test junk";

export function addressOf(custody: Custody, chain: ChainId, account: number, index: number): string {
  return custody.deriveAddress(chain, account, index).address;
}
