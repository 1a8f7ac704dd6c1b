import { AppError, CHAIN_IDS, chainFamily } from "@mp/core";
import { createCustody, indexKeySchemes } from "@mp/custody";
import { describe, expect, it } from "vitest";
import { TEST_JUNK_MNEMONIC } from "../../packages/custody/test/support.ts";
import { isChainAddress, KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";

describe("the registry's key schemes", () => {
  it("cover every chain's family once, and a list missing one or naming one twice is refused", () => {
    const schemes = indexKeySchemes(KEY_SCHEMES);
    for (const chain of CHAIN_IDS) expect(schemes.ofChain(chain).family).toBe(chainFamily(chain));
    const [first, ...rest] = KEY_SCHEMES;
    expect(() => indexKeySchemes(rest)).toThrow(AppError);
    expect(() => indexKeySchemes([...KEY_SCHEMES, ...(first ? [first] : [])])).toThrow(/two key schemes/);
  });

  it("accept the addresses custody derives on their chain and refuse every other family's", () => {
    const custody = createCustody(TEST_JUNK_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    const wallet = custody.deriveWalletAddresses(2, 9);
    for (const own of wallet) {
      for (const other of wallet) {
        const sameFamily = chainFamily(own.chain) === chainFamily(other.chain);
        expect(isChainAddress(own.chain, other.address, "regtest")).toBe(sameFamily);
      }
    }
    // A Bitcoin address is one of its network only.
    const bitcoin = wallet.find((destination) => destination.chain === "BITCOIN")?.address ?? "";
    expect(isChainAddress("BITCOIN", bitcoin, "mainnet")).toBe(false);
  });
});
